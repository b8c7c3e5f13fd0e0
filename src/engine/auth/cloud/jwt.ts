// Login JWT verification for the cloud method, in jose's fixed order: structure, algorithm
// allow-list (RS256 only), key lookup by kid (provider OAuth2 certs first, then — iam roles only —
// the service account's own keys), signature (node:crypto), then claims with explicit leeways.

import { verify, type KeyObject } from 'node:crypto';
import { ApiError, Errors } from '../../../schema/errors';
import { IdpError } from '../../../idp-client/http';
import type { IdpClient } from '../../../idp-client/client';
import type { RoleType } from '../../../schema/cloud-role';

export const ALLOWED_ALGS = ['RS256'] as const;
/** Leeway for exp in the past and for the global 60-minute cap (seconds). */
export const EXP_LEEWAY = 60;
export const GLOBAL_MAX_EXP = 3600;

export interface ComputeEngineClaims {
  project_id: string;
  project_number: string;
  zone: string;
  instance_id: string;
  instance_name: string;
  instance_creation_timestamp: string;
}

export interface VerifiedJwt {
  payload: Record<string, unknown>;
  sub: string;
  exp: number;
  /** 'provider': the provider's OAuth2 certs; 'service_account': the subject's own keys. */
  keySource: 'provider' | 'service_account';
  /** Present only when the token carries compute_engine claims and was provider-signed. */
  computeEngine?: ComputeEngineClaims;
}

/**
 * RS256 check on libuv's thread pool (node:crypto's callback form): the RSA public-key operation is
 * the largest single cost of a login, and off the event loop it overlaps with request parsing and
 * the token write of other logins instead of adding to them.
 */
function verifyOffThread(data: Buffer, key: KeyObject, signature: Buffer): Promise<boolean> {
  return new Promise((resolve, reject) => verify('RSA-SHA256', data, key, signature, (err, ok) => (err ? reject(err) : resolve(ok))));
}

const bad = (msg: string) => Errors.badRequest(msg);

function decodeJson(part: string, what: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw bad(`unable to parse signed JWT: the ${what} is not base64url-encoded JSON`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(`unable to parse signed JWT: the ${what} is not a JSON object`);
  return v as Record<string, unknown>;
}

function upstream(e: unknown, what: string): ApiError {
  const msg = e instanceof Error ? e.message : String(e);
  return new ApiError('upstream', [`${what}: ${msg}`]);
}

function computeClaims(payload: Record<string, unknown>): ComputeEngineClaims | undefined {
  const g = payload.google as { compute_engine?: Record<string, unknown> } | undefined;
  const ce = g && typeof g === 'object' ? g.compute_engine : undefined;
  if (!ce || typeof ce !== 'object') return undefined;
  const s = (k: string) => (ce[k] === undefined || ce[k] === null ? '' : String(ce[k]));
  if (!s('instance_id')) return undefined;
  return {
    project_id: s('project_id'),
    project_number: s('project_number'),
    zone: s('zone'),
    instance_id: s('instance_id'),
    instance_name: s('instance_name'),
    instance_creation_timestamp: s('instance_creation_timestamp'),
  };
}

/**
 * Verifies a login JWT for a role. `roleName` is the login request's spelling; `nowMs` comes from
 * the injected clock. Throws ApiError 400 for every rejection, 500 when the provider fails.
 */
export async function verifyLoginJwt(
  jwt: string,
  roleType: RoleType,
  roleName: string,
  client: IdpClient,
  nowMs: number,
): Promise<VerifiedJwt> {
  // 1. Structure.
  const parts = jwt.split('.');
  if (parts.length !== 3 || parts.some((p, i) => p === '' && i < 2)) {
    throw bad('unable to parse signed JWT: expected a compact JWS with three dot-separated parts');
  }
  const header = decodeJson(parts[0], 'header');
  // 2. Algorithm allow-list, before any key is touched (no "none", no HMAC with a public key).
  if (typeof header.alg !== 'string' || !(ALLOWED_ALGS as readonly string[]).includes(header.alg)) {
    throw bad(`unable to parse signed JWT: algorithm ${JSON.stringify(header.alg ?? null)} is not allowed (only RS256)`);
  }
  if (header.crit !== undefined) throw bad('unable to parse signed JWT: "crit" header parameters are not supported');
  if (parts[2] === '') throw bad('unable to parse signed JWT: the signature is empty');
  const payload = decodeJson(parts[1], 'payload');
  const kid = typeof header.kid === 'string' ? header.kid : '';
  if (!kid) throw bad(`unable to get public key for signed JWT: the JWT header has no "kid"`);

  // 3. Key lookup.
  let key: KeyObject | undefined;
  let keySource: VerifiedJwt['keySource'] = 'provider';
  try {
    key = await client.oauth2Key(kid);
  } catch (e) {
    throw upstream(e, 'unable to get public key for signed JWT: cannot fetch the provider OAuth2 certificates');
  }
  if (!key) {
    const sub = typeof payload.sub === 'string' ? payload.sub : '';
    if (!sub) throw bad(`unable to get public key for signed JWT: expected 'sub' claim from JWT`);
    if (roleType === 'vm') {
      throw bad(`unable to get public key ${JSON.stringify(kid)} for JWT subject ${JSON.stringify(sub)}: no provider OAuth2 key found for VM role`);
    }
    try {
      key = await client.serviceAccountKey(sub, kid);
    } catch (e) {
      if (e instanceof IdpError && e.status === 404) {
        throw bad(`unable to get public key ${JSON.stringify(kid)} for JWT subject ${JSON.stringify(sub)}: service account not found`);
      }
      throw upstream(e, `unable to get public key ${JSON.stringify(kid)} for JWT subject ${JSON.stringify(sub)}`);
    }
    if (!key) throw bad(`unable to get public key ${JSON.stringify(kid)} for JWT subject ${JSON.stringify(sub)}: unknown key id`);
    keySource = 'service_account';
  }
  if (key.asymmetricKeyType !== 'rsa') throw bad(`unable to verify JWT: key ${JSON.stringify(kid)} is not an RSA key`);

  // 4. Signature.
  const ok = await verifyOffThread(Buffer.from(`${parts[0]}.${parts[1]}`), key, Buffer.from(parts[2], 'base64url'));
  if (!ok) throw bad('unable to verify JWT: signature verification failed');

  // 5. Claims: exp (required, leeway), global cap, sub, aud (required, every value ends in vault/<role>).
  const now = nowMs / 1000;
  const exp = payload.exp;
  if (typeof exp !== 'number' || !Number.isFinite(exp) || exp < now - EXP_LEEWAY) {
    throw bad(`JWT is expired or does not have proper 'exp' claim`);
  }
  if (exp > now + GLOBAL_MAX_EXP + EXP_LEEWAY) {
    throw bad(`JWT must expire in 60 minutes, expires in ${Math.round(exp - now)} seconds: mint a JWT with a shorter 'exp'`);
  }
  const sub = typeof payload.sub === 'string' ? payload.sub : '';
  if (!sub) throw bad(`expected JWT to have 'sub' claim with service account id or email`);
  const aud = payload.aud;
  const auds = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  const suffix = `vault/${roleName}`.toLowerCase();
  if (auds.length === 0 || !auds.every((a) => typeof a === 'string' && a.toLowerCase().endsWith(suffix))) {
    throw bad(`at least one of the JWT claim 'aud' must end in ${JSON.stringify(`vault/${roleName}`)} (every aud value must, and aud is required)`);
  }
  return { payload, sub, exp, keySource, computeEngine: keySource === 'provider' ? computeClaims(payload) : undefined };
}
