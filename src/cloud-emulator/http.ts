// HTTP plumbing shared by the emulator's route modules: Google-style errors, body reading, JWT
// parsing, and the scope (world, keys, issued tokens) handlers work on.

import type { IncomingMessage } from 'node:http';
import type { Description, DescribedServiceAccount } from './description';
import type { EmulatorKeys } from './keys';
import type { MintInstanceOptions } from './mint';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly reason = status === 404 ? 'NOT_FOUND' : status === 401 ? 'UNAUTHENTICATED' : status === 403 ? 'PERMISSION_DENIED' : 'INVALID_ARGUMENT',
  ) {
    super(message);
  }
}

/** Refusals of the Security Token Service, in OAuth's shape (error + error_description) as Google's. */
export class OAuthError extends HttpError {
  constructor(
    readonly code: string,
    description: string,
    status = 400,
  ) {
    super(status, description);
  }
}

/** One STS exchange the emulator answered (refused ones too); never the tokens. */
export interface ExchangeRecord {
  at: number;
  /** The provider's resource name the audience named (or the raw audience when unknown). */
  audience: string;
  /** The subject token's `sub`, when it could be read. */
  subject?: string;
  ok: boolean;
  error?: string;
}

/** One generateAccessToken call (refused ones too). */
export interface ImpersonationRecord {
  at: number;
  principal: string;
  serviceAccount: string;
  ok: boolean;
  error?: string;
}

/** A federated access token the STS issued. */
export interface FederatedToken {
  principal: string;
  /** principalSet://…/workloadIdentityPools/<pool>/* */
  poolSet: string;
  expires: number;
}

/** IAM key administration calls (create, delete), for tests that assert rotation happened. */
export interface KeyEventRecord {
  at: number;
  action: 'create' | 'delete';
  serviceAccount: string;
  kid: string;
}

export interface EmulatorRecords {
  exchanges: ExchangeRecord[];
  impersonations: ImpersonationRecord[];
  keyEvents: KeyEventRecord[];
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function parseJwtParts(jwt: string): { header: Record<string, unknown>; payload: Record<string, unknown>; input: string; sig: Buffer } {
  const parts = jwt.split('.');
  if (parts.length !== 3) throw new HttpError(400, 'malformed assertion');
  try {
    return {
      header: JSON.parse(Buffer.from(parts[0], 'base64url').toString()),
      payload: JSON.parse(Buffer.from(parts[1], 'base64url').toString()),
      input: `${parts[0]}.${parts[1]}`,
      sig: Buffer.from(parts[2], 'base64url'),
    };
  } catch {
    throw new HttpError(400, 'malformed assertion');
  }
}

/** What route handlers see of a running emulator. */
export interface EmulatorScope {
  d: Description;
  keys: EmulatorKeys;
  /** The metadata server's identity: its service account and instance, if any. */
  metadata: { serviceAccount?: string; instance?: string };
  pageSize: number;
  mintInstanceToken(o: MintInstanceOptions): string;
  now(): number;
  computeBase(): string;
  /** A live (not deleted) account by email or unique id, else 404. */
  liveAccount(id: string): DescribedServiceAccount;
  /** Whether a key was deleted at the provider (gone from the key documents). */
  keyDeleted(kid: string): boolean;
  /** Deletes a key at the provider (key documents and the token endpoint stop accepting it). */
  deleteKey(kid: string): void;
  issueToken(email: string, lifetimeSeconds?: number): { access_token: string; expires_in: number; token_type: string };
  /** Federated tokens issued by the STS (accepted only by generateAccessToken). */
  federated: Map<string, FederatedToken>;
  records: EmulatorRecords;
  /** Where key files' token_uri points (this emulator's /token). */
  tokenUri(): string;
  /** Throws 401 unless the request carries a bearer token this emulator issued (when auth is on). */
  checkAuth(req: IncomingMessage): void;
}

export type EmulatorHandler = (m: RegExpExecArray, req: IncomingMessage, q: URLSearchParams) => Promise<unknown> | unknown;
/** [name (for counts), method, path pattern, handler] */
export type EmulatorRoute = [string, string, RegExp, EmulatorHandler];
