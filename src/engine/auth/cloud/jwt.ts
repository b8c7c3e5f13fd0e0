// Login JWT verification for the cloud method. jose does the JWS/JWT work (structure, base64url,
// the RS256 allow-list, the signature, exp/nbf/iat types and times on the injected clock); keyward
// adds its own rules around it: canonical base64url segments, no `crit`, a `kid`, a `sub` shaped
// like a service account before it reaches a provider URL, finite time claims, no `iat` in the
// future, the global 60-minute cap and `aud`.

import { decodeJwt, decodeProtectedHeader, errors as jose, jwtVerify, type JWTPayload } from 'jose';
import { webcrypto, type KeyObject } from 'node:crypto';
import { ApiError, Errors } from '../../../schema/errors';
import { IdpError } from '../../../idp-client/http';
import type { IdpClient } from '../../../idp-client/client';
import type { RoleType } from '../../../schema/cloud-role';

export const ALLOWED_ALGS = ['RS256'];
/** Leeway for exp in the past, nbf in the future and the global 60-minute cap (seconds). */
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

const bad = (msg: string) => Errors.badRequest(msg);

/** Service-account email or numeric unique id: nothing else may reach a provider URL path. */
const SA_EMAIL = /^[a-z0-9][a-z0-9._+-]{0,99}@[a-z0-9-]+(\.[a-z0-9-]+)+$/i;
const SA_ID = /^[0-9]{1,32}$/;
export function isServiceAccountRef(sub: string): boolean {
  return sub.length <= 254 && (SA_ID.test(sub) || SA_EMAIL.test(sub));
}
const badSub = () => bad(`expected JWT to have 'sub' claim with service account id or email (a service-account email or numeric unique id)`);

/**
 * One spelling per byte string: only the base64url alphabet, no padding, no stray bits in the last
 * character. Anything else is a second encoding of the same signature (a malleable token).
 */
const B64URL = /^[A-Za-z0-9_-]*$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
export function canonicalSegment(seg: string): boolean {
  if (!B64URL.test(seg)) return false;
  const tail = seg.length % 4;
  if (tail === 1) return false;
  if (tail === 0) return true;
  // A last character carrying 4 (tail 2) or 2 (tail 3) unused bits must leave them zero: checked on
  // that character alone, instead of decoding and re-encoding the segment on every login.
  const v = ALPHABET.indexOf(seg[seg.length - 1]);
  return (v & (tail === 2 ? 0x0f : 0x03)) === 0;
}

function upstream(e: unknown, what: string): ApiError {
  const msg = e instanceof Error ? e.message : String(e);
  return new ApiError('upstream', [`${what}: ${msg}`]);
}

/** jose's stable error codes mapped to keyward's messages (all 400: the caller sent a bad JWT). */
function joseFailure(e: unknown): ApiError {
  if (e instanceof jose.JWSSignatureVerificationFailed) return bad('unable to verify JWT: signature verification failed');
  if (e instanceof jose.JWTExpired) return bad(`JWT is expired or does not have proper 'exp' claim`);
  if (e instanceof jose.JWTClaimValidationFailed) {
    if (e.claim === 'exp') return bad(`JWT is expired or does not have proper 'exp' claim`);
    if (e.claim === 'nbf' && e.reason === 'check_failed') return bad(`JWT is not valid yet: its 'nbf' claim is in the future`);
    return bad(`JWT has an invalid '${e.claim}' claim: ${e.message}`);
  }
  if (e instanceof jose.JOSEAlgNotAllowed) return bad('unable to parse signed JWT: only RS256 is allowed');
  if (e instanceof jose.JOSEError) return bad(`unable to parse signed JWT: ${e.message}`);
  return upstream(e, 'unable to verify JWT');
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
 * The verification key for a kid: the provider's OAuth2 certs first; for iam roles, the subject's
 * own keys when the certs do not hold it, or when the certs endpoint is down (as Vault falls back).
 */
async function keyFor(client: IdpClient, roleType: RoleType, kid: string, unverifiedSub: () => string): Promise<{ key: KeyObject; source: VerifiedJwt['keySource'] }> {
  let certsFailure: unknown;
  try {
    const key = await client.oauth2Key(kid);
    if (key) return { key, source: 'provider' };
  } catch (e) {
    certsFailure = e;
  }
  if (roleType === 'vm') {
    if (certsFailure) throw upstream(certsFailure, 'unable to get public key for signed JWT: cannot fetch the provider OAuth2 certificates');
    throw bad(`unable to get public key ${JSON.stringify(kid)} for JWT subject ${JSON.stringify(unverifiedSub())}: no provider OAuth2 key found for VM role`);
  }
  const sub = unverifiedSub();
  const where = `unable to get public key ${JSON.stringify(kid)} for JWT subject ${JSON.stringify(sub)}`;
  let key: KeyObject | undefined;
  try {
    key = await client.serviceAccountKey(sub, kid);
  } catch (e) {
    if (e instanceof IdpError && e.status === 404) throw bad(`${where}: service account not found`);
    if (certsFailure) throw upstream(certsFailure, 'unable to get public key for signed JWT: cannot fetch the provider OAuth2 certificates nor the service account keys');
    throw upstream(e, where);
  }
  if (!key) {
    if (certsFailure) throw upstream(certsFailure, `${where}: not among the service account keys, and cannot fetch the provider OAuth2 certificates`);
    throw bad(`${where}: unknown key id`);
  }
  return { key, source: 'service_account' };
}

/**
 * jose verifies with WebCrypto, so each provider key is imported as a CryptoKey once, while its key
 * document is kept; handed a KeyObject, jose looks its conversion up again on every login.
 */
const cryptoKeys = new WeakMap<KeyObject, webcrypto.CryptoKey>();
async function importVerificationKey(key: KeyObject): Promise<webcrypto.CryptoKey> {
  const spki = key.export({ type: 'spki', format: 'der' });
  const imported = await webcrypto.subtle.importKey('spki', spki, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['verify']);
  cryptoKeys.set(key, imported);
  return imported;
}

/**
 * Verifies a login JWT for a role. `roleName` is the login request's spelling; `nowMs` comes from
 * the injected clock. Throws ApiError 400 for every rejection, 500 when the provider fails.
 */
export async function verifyLoginJwt(jwt: string, roleType: RoleType, roleName: string, client: IdpClient, nowMs: number): Promise<VerifiedJwt> {
  // 1. Structure, canonical encoding, algorithm allow-list and crit: before any key is fetched.
  const parts = jwt.split('.');
  if (parts.length !== 3 || parts.some((p) => p === '')) {
    if (parts.length === 3 && parts[0] !== '' && parts[1] !== '' && parts[2] === '') {
      const alg = safeHeader(jwt)?.alg;
      if (alg !== undefined && !ALLOWED_ALGS.includes(alg)) throw bad(`unable to parse signed JWT: algorithm ${JSON.stringify(alg)} is not allowed (only RS256)`);
      throw bad('unable to parse signed JWT: the signature is empty');
    }
    throw bad('unable to parse signed JWT: expected a compact JWS with three dot-separated parts');
  }
  if (!parts.every(canonicalSegment)) throw bad('unable to parse signed JWT: every part must be unpadded base64url (RFC 7515), with no other characters');
  const header = safeHeader(jwt);
  if (!header) throw bad('unable to parse signed JWT: the header is not base64url-encoded JSON object');
  if (typeof header.alg !== 'string' || !ALLOWED_ALGS.includes(header.alg)) {
    throw bad(`unable to parse signed JWT: algorithm ${JSON.stringify(header.alg ?? null)} is not allowed (only RS256)`);
  }
  if (header.crit !== undefined) throw bad('unable to parse signed JWT: "crit" header parameters are not supported');
  const kid = typeof header.kid === 'string' ? header.kid : '';
  if (!kid) throw bad(`unable to get public key for signed JWT: the JWT header has no "kid"`);

  // 2. Key lookup: the unverified sub only picks the key document, and only once it has the shape of a service account.
  const unverifiedSub = () => {
    let claims: JWTPayload;
    try {
      claims = decodeJwt(jwt);
    } catch {
      throw bad('unable to parse signed JWT: the payload is not base64url-encoded JSON object');
    }
    const sub = typeof claims.sub === 'string' ? claims.sub : '';
    if (!sub) throw bad(`unable to get public key for signed JWT: expected 'sub' claim from JWT`);
    if (!isServiceAccountRef(sub)) throw badSub();
    return sub;
  };
  const { key, source } = await keyFor(client, roleType, kid, unverifiedSub);
  if (key.asymmetricKeyType !== 'rsa') throw bad(`unable to verify JWT: key ${JSON.stringify(kid)} is not an RSA key`);

  // 3. Signature and registered claims (jose): exp required, nbf/iat numbers, times on our clock.
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(jwt, cryptoKeys.get(key) ?? (await importVerificationKey(key)), {
      algorithms: ALLOWED_ALGS,
      currentDate: new Date(nowMs),
      clockTolerance: EXP_LEEWAY,
      requiredClaims: ['exp'],
    }));
  } catch (e) {
    throw joseFailure(e);
  }

  // 4. keyward's rules. Time claims are finite (JSON's 1e309 parses to Infinity, which Vault's
  // decoder refuses) and not issued in the future (go-jose's ErrIssuedInTheFuture, which jose only
  // checks with maxTokenAge); then the global cap, sub, aud (required, every value ends in vault/<role>).
  const now = nowMs / 1000;
  for (const c of ['exp', 'nbf', 'iat'] as const) {
    if (payload[c] !== undefined && !Number.isFinite(payload[c])) throw bad(`JWT has an invalid '${c}' claim: it must be a finite number of seconds`);
  }
  if (payload.iat !== undefined && payload.iat > now + EXP_LEEWAY) throw bad(`JWT is not valid yet: its 'iat' claim (issued at) is in the future`);
  const exp = payload.exp!;
  if (exp > now + GLOBAL_MAX_EXP + EXP_LEEWAY) {
    throw bad(`JWT must expire in 60 minutes, expires in ${Math.round(exp - now)} seconds: mint a JWT with a shorter 'exp'`);
  }
  const sub = typeof payload.sub === 'string' ? payload.sub : '';
  if (!sub || !isServiceAccountRef(sub)) throw badSub();
  const aud = payload.aud;
  const auds = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  const suffix = `vault/${roleName}`.toLowerCase();
  if (auds.length === 0 || !auds.every((a) => typeof a === 'string' && a.toLowerCase().endsWith(suffix))) {
    throw bad(`at least one of the JWT claim 'aud' must end in ${JSON.stringify(`vault/${roleName}`)} (every aud value must, and aud is required)`);
  }
  const claims = payload as Record<string, unknown>;
  return { payload: claims, sub, exp, keySource: source, computeEngine: source === 'provider' ? computeClaims(claims) : undefined };
}

function safeHeader(jwt: string): { alg?: string; kid?: string; crit?: unknown } | undefined {
  try {
    return decodeProtectedHeader(jwt) as { alg?: string; kid?: string; crit?: unknown };
  } catch {
    return undefined;
  }
}
