// Client settings from Vault's environment conventions (VAULT_ADDR, VAULT_TOKEN then ~/.vault-token,
// VAULT_NAMESPACE, VAULT_CACERT, VAULT_SKIP_VERIFY, VAULT_CLIENT_TIMEOUT, VAULT_MAX_RETRIES) with
// explicit values taking precedence, and the retry policy. The CLI and the provider both resolve
// through settingsFromEnv, so a stack reaches the same server and token either way.

import type { Dispatcher } from 'undici';
import { readNamedFile } from './named-file';
import { undiciAgent } from './undici-agent';
import { SERVER_DIALECTS, type ServerDialect } from './dialect/server-dialect';
import { resolveAddress, resolveNamespace, resolveSnapshotAddress, resolveToken } from './server-address';
import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, timeBoundsFromEnv } from './time-bounds';

export interface RetryPolicy {
  /** Total attempts per request, the first one included. */
  attempts: number;
  /** First backoff ceiling; doubles per retry ("full jitter": a uniform draw below the ceiling). */
  baseDelayMs: number;
  maxDelayMs: number;
}

// Vault's client: 2 retries, waits between 1 s and 1.5 s. Full jitter below a doubling ceiling here
// (concurrent role writes that meet a 429 spread out instead of returning together).
export const defaultRetryPolicy: RetryPolicy = { attempts: DEFAULT_MAX_RETRIES + 1, baseDelayMs: 500, maxDelayMs: 1500 };

export interface ClientSettings {
  address: string;
  token?: string;
  namespace?: string;
  /** PEM file of the CA that signed the server's certificate. */
  caFile?: string;
  /** Disable certificate verification (testing only). */
  tlsSkipVerify?: boolean;
  retry?: Partial<RetryPolicy>;
  /** Per-attempt timeout for the connection, the response headers and each body read (default 10 s). */
  timeoutMs?: number;
  /** Aborts every request in flight and every later one (Terraform's StopProvider). */
  signal?: AbortSignal;
  /** Concurrent connections to the server (keep-alive pool size). */
  connections?: number;
  /** Which names the server speaks: keyward's (the seed) or Vault's; undefined = detect from sys/health. */
  dialect?: ServerDialect;
  /**
   * Where snapshot configs go when not to `address`: a keyward snapshot agent serving
   * snapshot-auto for a server without it (Vault Community, OpenBao). Same token and TLS settings.
   */
  snapshotAddress?: string;
  /** The auth method type `cloud` mounts are created with and recognised by (see TranslatorOptions). */
  cloudPlugin?: string;
  /** Where the token came from (`VAULT_TOKEN`, a token file), for messages about a refused token. */
  tokenSource?: string;
  /** The declared namespace won over a different VAULT_NAMESPACE: said once by the front end. */
  addressWarning?: string;
}

export { SERVER_DIALECTS, type ServerDialect } from './dialect/server-dialect';

export interface SettingsOverrides {
  address?: string;
  token?: string;
  namespace?: string;
  caFile?: string;
  tlsSkipVerify?: boolean;
  dialect?: ServerDialect;
  snapshotAddress?: string;
  cloudPlugin?: string;
  /** Per-attempt timeout (ms); default VAULT_CLIENT_TIMEOUT, then 10 s. */
  timeoutMs?: number;
  /** Retries after the first attempt; default VAULT_MAX_RETRIES, then 2. */
  maxRetries?: number;
}

/** An environment variable names another host than the stack declares: nothing is sent (see resolveAddress). */
export class AddressConflictError extends Error {
  override name = 'AddressConflictError';
}

const truthy = (v: string | undefined) => v !== undefined && ['1', 't', 'true', 'yes'].includes(v.trim().toLowerCase());

/**
 * Flags first, then the stack's declared address and snapshot address (the manifest's server block,
 * the provider block), then the environment (see resolveAddress, resolveSnapshotAddress); the
 * namespace by the same rule (resolveNamespace). The dialect:
 * --dialect / the provider block, then KEYWARD_DIALECT, then the manifest, else detected.
 */
export function settingsFromEnv(
  overrides: SettingsOverrides = {},
  env: NodeJS.ProcessEnv = process.env,
  manifestServer: { address?: string; namespace?: string; dialect?: ServerDialect; snapshotAddress?: string; cloudPlugin?: string } = {},
): ClientSettings {
  const { address, refusal } = resolveAddress(overrides.address, manifestServer.address, env);
  const snapshot = resolveSnapshotAddress(overrides.snapshotAddress, manifestServer.snapshotAddress, env);
  // Before the token is read or a client exists: nothing is sent when the hosts disagree.
  const refusals = [refusal, snapshot.refusal].filter((r) => r !== undefined);
  if (refusals.length) throw new AddressConflictError(refusals.join(' '));
  const ns = resolveNamespace(overrides.namespace, manifestServer.namespace, env);
  const warnings = [ns.warning].filter((w) => w !== undefined);
  const fromEnv = timeBoundsFromEnv(env);
  const token = overrides.token !== undefined ? { token: overrides.token, source: 'the given token' } : resolveToken(env);
  return {
    address,
    ...(warnings.length ? { addressWarning: warnings.join(' ') } : {}),
    ...(token.source ? { tokenSource: token.source } : {}),
    token: token.token,
    namespace: ns.namespace,
    caFile: overrides.caFile ?? env.VAULT_CACERT,
    tlsSkipVerify: overrides.tlsSkipVerify ?? truthy(env.VAULT_SKIP_VERIFY),
    dialect: overrides.dialect ?? dialectFromEnv(env.KEYWARD_DIALECT) ?? manifestServer.dialect,
    snapshotAddress: snapshot.address,
    cloudPlugin: overrides.cloudPlugin ?? (env.KEYWARD_CLOUD_PLUGIN || undefined) ?? manifestServer.cloudPlugin,
    timeoutMs: overrides.timeoutMs ?? fromEnv.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    retry: { attempts: (overrides.maxRetries ?? fromEnv.maxRetries ?? DEFAULT_MAX_RETRIES) + 1 },
  };
}

function dialectFromEnv(v: string | undefined): ServerDialect | undefined {
  if (v === undefined || v.trim() === '' || v.trim() === 'auto') return undefined;
  const d = v.trim().toLowerCase();
  if ((SERVER_DIALECTS as readonly string[]).includes(d)) return d as ServerDialect;
  throw new Error(`KEYWARD_DIALECT: must be one of ${SERVER_DIALECTS.join(', ')} or auto, got ${JSON.stringify(v)}`);
}

/**
 * A keep-alive connection pool with the TLS options applied. undici loads here, on the first
 * client, not with the settings: the Terraform provider reads its settings at every configure,
 * and most of its processes never send a request (loading undici was most of configure's time).
 */
export function createDispatcher(s: ClientSettings): Dispatcher {
  const Agent = undiciAgent();
  const connect: Record<string, unknown> = {};
  if (s.caFile) connect.ca = readNamedFile(s.caFile, "the CA certificate file (--ca-cert, VAULT_CACERT or the provider's ca_cert_file)");
  if (s.tlsSkipVerify) connect.rejectUnauthorized = false;
  connect.timeout = s.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new Agent({
    connect,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    connections: s.connections ?? 32,
    pipelining: 1,
  });
}
