// The contract between the core and the route families mounted on it (system paths, the token
// store, auth methods such as `cloud`): routes with per-operation handlers, and hooks for renewal.

import type { Readable } from 'node:stream';
import type { Clock } from './clock';
import type { Logger } from './log';
import type { JsonStore } from './storage/json-store';
import type { Reply } from './core/reply';
import type { TokenEntry } from './token/token-entry';
import type { RenewDecision } from './token/login-result';
import type { MountTune } from './mount/mount-tune';

export type Operation = 'read' | 'list' | 'create' | 'update' | 'delete';

export interface NamespaceRef {
  id: string;
  /** "" for root, else "team/" style with a trailing slash. */
  path: string;
}

export interface RequestContext {
  operation: Operation;
  /** Path relative to the route family (for an auth mount: relative to the mount). */
  path: string;
  /** Namespace-relative path as policies see it, e.g. "auth/cloud/role/web". */
  aclPath: string;
  params: Record<string, string>;
  /** JSON body merged with query parameters (query for GET/DELETE/LIST). */
  body: Record<string, unknown>;
  /** Raw request body, only on routes marked raw. */
  stream?: Readable;
  query: URLSearchParams;
  namespace: NamespaceRef;
  /** The caller's token; absent only on unauthenticated routes called without one. */
  token?: TokenEntry;
  /** The caller's token as sent, on routes marked forwardsToken only (to pass on, never to log). */
  callerToken?: string;
  /** Whether the caller's policies grant sudo on this path (root tokens do); false without a token. */
  sudo: boolean;
  clientAddress: string;
  /** Warnings added here are returned in the envelope. */
  warnings: string[];
  /** Storage scoped to this route family (a mount's own view for auth methods). */
  storage: JsonStore;
  clock: Clock;
  log: Logger;
  requestId: string;
  /** The route's unknown-field policy (see Route.unknownFields). */
  unknownFields?: 'warn' | 'reject';
}

export type Handler = (ctx: RequestContext) => Promise<Reply | void> | Reply | void;

export interface Route {
  /**
   * "/"-separated segments: literal text, ":name" (one segment, Vault's name rule
   * \w(([\w-.]+)?\w)?), ":name+" (one segment of any characters, checked by the handler),
   * ":name*" (the rest of the path, may contain "/"); a trailing "/?" makes
   * the final slash optional (LIST paths).
   */
  pattern: string;
  operations: Partial<Record<Operation, Handler>>;
  /** Callable without a token (login, health). */
  unauthenticated?: boolean;
  /**
   * The caller's token is not even looked up (implies unauthenticated): Vault serves sys/health
   * and sys/seal-status in its HTTP layer, before any token handling, so a token sent along (the
   * Vault CLI always sends one) neither costs a storage read nor can fail the request.
   */
  ignoresToken?: boolean;
  /**
   * With ignoresToken: the caller's token is handed to the handler (ctx.callerToken) to be sent on
   * to another server that decides about it (the snapshot agent's forwarded token paths).
   */
  forwardsToken?: boolean;
  /** HEAD is served as a read without the body (sys/health); elsewhere HEAD is unsupported. */
  head?: boolean;
  /** Requires the sudo capability in addition to the operation's. */
  sudo?: boolean;
  /** Only from the root namespace (400 "operation unavailable in namespaces" otherwise). */
  rootOnly?: boolean;
  /** For POST/PUT: whether the target exists; false makes the operation "create" for ACL. */
  exists?: (ctx: RequestContext) => Promise<boolean>;
  /** The handler reads ctx.stream itself; the body is not parsed as JSON nor size-limited. */
  raw?: boolean;
  /** Unknown body fields: "warn" (default, Vault framework) or "reject" (422). */
  unknownFields?: 'warn' | 'reject';
}

export interface MountInfo {
  /** Mount path without trailing slash, e.g. "cloud" or "team/a". */
  path: string;
  accessor: string;
  type: string;
  namespace: NamespaceRef;
  /** The mount's current tune settings (lease TTLs, token type), read at each login. */
  tune?: () => MountTune;
}

/** Signs plugin identity tokens for a mount (Vault's plugin workload identity). */
export interface PluginIdentityTokens {
  sign(mount: MountInfo, audience: string, ttlSeconds: number): Promise<string>;
  /** The longest token lifetime sign() accepts (the signing key's verification_ttl). */
  maxTtlSeconds(): number;
}

/** Engine services an auth method may use beyond its own storage. */
export interface AuthMethodServices {
  identityTokens?: PluginIdentityTokens;
}

export interface AuthMethodInit extends AuthMethodServices {
  storage: JsonStore;
  clock: Clock;
  log: Logger;
  mount: MountInfo;
  env: NodeJS.ProcessEnv;
}

export interface RenewContext {
  token: TokenEntry;
  storage: JsonStore;
  clock: Clock;
  log: Logger;
}

export interface AuthMethod {
  routes: Route[];
  /** Re-checks a token issued by this method before renewal; throw ApiError to refuse. */
  renew?(ctx: RenewContext): Promise<RenewDecision>;
  close?(): Promise<void>;
}

export interface AuthMethodFactory {
  type: string;
  create(init: AuthMethodInit): AuthMethod;
}

/** The seal: encrypts values at rest with the key from the seal key file (AES-256-GCM). */
export interface Seal {
  /** `aad`: associated data bound to the ciphertext (the barrier passes the storage key). */
  encrypt(plain: Buffer, aad?: string): Buffer;
  /** Throws if the blob was not sealed with this key (and this `aad`). */
  decrypt(sealed: Buffer, aad?: string): Buffer;
}

export type Edition = 'oss' | 'enterprise' | 'plus';

/** What system route families (snapshots, policies, ...) may use from the engine. */
export interface SystemContext {
  /** Physical store with values already encrypted by the barrier; use for snapshots. */
  rawStorage: import('./storage/storage').Storage;
  /** Root JSON view (decrypted). Families keep their data under their own prefix. */
  store: JsonStore;
  seal: Seal;
  edition: Edition;
  clock: Clock;
  log: Logger;
  /** Data directory of this engine (for scratch files). */
  dataDir: string;
  /** Re-reads every in-memory table (mounts, policies, schedules) after the store was replaced. */
  reload(): Promise<void>;
}

/** A family of system routes with an optional lifecycle (e.g. the snapshot scheduler). */
export interface SystemFamily {
  routes: Route[];
  /** Called once the engine is up, and again after reload(). */
  start?(): Promise<void>;
  /** Called on shutdown and before a reload. */
  stop?(): Promise<void>;
}

export type SystemFamilyFactory = (sys: SystemContext) => SystemFamily;
