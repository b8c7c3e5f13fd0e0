// Workload identity federation as Google serves it: the Security Token Service exchange (RFC 8693
// fields, sts.googleapis.com/v1/token) verifying an OIDC subject token against its issuer's keys,
// fetched over HTTP at each exchange, and IAM Credentials generateAccessToken for a service account
// the federated principal may impersonate (roles/iam.workloadIdentityUser). Every exchange and
// impersonation is recorded, refused ones too, without the tokens.

import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet } from 'jose';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { parseAttributeCondition } from './attribute-condition';
import type { DescribedPool, DescribedProvider } from './description';
import { HttpError, OAuthError, readBody, type EmulatorRoute, type EmulatorScope, type ExchangeRecord, type ImpersonationRecord } from './http';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const JWT_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
export const WORKLOAD_IDENTITY_USER = 'roles/iam.workloadIdentityUser';

const AUDIENCE_RE = /^(?:https:)?\/\/iam\.googleapis\.com\/projects\/(\d+)\/locations\/global\/workloadIdentityPools\/([^/]+)\/providers\/([^/]+)$/;

async function form(req: IncomingMessage): Promise<URLSearchParams> {
  const body = await readBody(req);
  if (req.headers['content-type']?.includes('json')) {
    const o = JSON.parse(body || '{}') as Record<string, unknown>;
    return new URLSearchParams(Object.entries(o).map(([k, v]): [string, string] => [k, Array.isArray(v) ? v.join(' ') : String(v)]));
  }
  return new URLSearchParams(body);
}

async function fetchJson(url: string, what: string): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(5000) });
  } catch (e) {
    throw new OAuthError('invalid_grant', `could not fetch the issuer's ${what} from ${url}: ${(e as Error).message}`);
  }
  if (!res.ok) throw new OAuthError('invalid_grant', `the issuer's ${what} at ${url} answered HTTP ${res.status}`);
  try {
    return (await res.json()) as Record<string, unknown>;
  } catch {
    throw new OAuthError('invalid_grant', `the issuer's ${what} at ${url} is not JSON`);
  }
}

function subjectOf(token: string): string | undefined {
  try {
    const p = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { sub?: unknown };
    return typeof p.sub === 'string' ? p.sub : undefined;
  } catch {
    return undefined;
  }
}

export function federationRoutes(x: EmulatorScope): EmulatorRoute[] {
  const find = (number: string, poolId: string, providerId: string): { pool: DescribedPool; provider: DescribedProvider } | undefined => {
    const project = x.d.projects.find((p) => p.number === number);
    const pool = x.d.workloadIdentityPools.find((p) => p.id === poolId && p.project === project?.id);
    const provider = pool?.providers.find((p) => p.id === providerId);
    return pool && provider ? { pool, provider } : undefined;
  };

  async function verifySubject(token: string, provider: DescribedProvider, resource: string): Promise<string> {
    const discovery = await fetchJson(`${provider.issuerUri.replace(/\/+$/, '')}/.well-known/openid-configuration`, 'OpenID discovery document');
    if (discovery.issuer !== provider.issuerUri) {
      throw new OAuthError(
        'invalid_grant',
        `the discovery document's issuer ${JSON.stringify(discovery.issuer)} is not the provider's issuer ${JSON.stringify(provider.issuerUri)}`,
      );
    }
    if (typeof discovery.jwks_uri !== 'string') throw new OAuthError('invalid_grant', "the issuer's discovery document has no jwks_uri");
    const jwks = (await fetchJson(discovery.jwks_uri, 'keys (JWKS)')) as unknown as JSONWebKeySet;
    const audiences = provider.allowedAudiences.length > 0 ? provider.allowedAudiences : [`https:${resource}`, resource];
    try {
      const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), {
        issuer: provider.issuerUri,
        audience: audiences,
        algorithms: ['RS256', 'ES256'],
        currentDate: new Date(x.now()),
        requiredClaims: ['sub', 'exp', 'iat'],
      });
      return String(payload.sub);
    } catch (e) {
      if (e instanceof joseErrors.JWTExpired) throw new OAuthError('invalid_grant', 'The subject token has expired (its exp is in the past).');
      if (e instanceof joseErrors.JWTClaimValidationFailed) {
        if (e.claim === 'aud') throw new OAuthError('invalid_grant', `The audience in the subject token does not match the expected audience (allowed: ${audiences.join(', ')}).`);
        if (e.claim === 'iss') throw new OAuthError('invalid_grant', `The issuer in the subject token does not match the provider's issuer ${provider.issuerUri}.`);
        throw new OAuthError('invalid_grant', `The subject token's "${e.claim}" claim is invalid: ${e.reason}.`);
      }
      if (e instanceof joseErrors.JWSSignatureVerificationFailed || e instanceof joseErrors.JWKSNoMatchingKey) {
        throw new OAuthError('invalid_grant', "The subject token's signature does not verify with any of the issuer's keys.");
      }
      if (e instanceof joseErrors.JOSEError) throw new OAuthError('invalid_grant', `The subject token is invalid: ${e.code}.`);
      throw e;
    }
  }

  async function exchange(req: IncomingMessage) {
    const f = await form(req);
    const audience = f.get('audience') ?? '';
    const record: ExchangeRecord = { at: x.now(), audience, ok: false };
    x.records.exchanges.push(record);
    try {
      if (f.get('grant_type') !== TOKEN_EXCHANGE_GRANT) throw new OAuthError('unsupported_grant_type', `grant_type must be ${TOKEN_EXCHANGE_GRANT}`);
      const subjectType = f.get('subject_token_type');
      if (subjectType !== JWT_TOKEN_TYPE && subjectType !== ID_TOKEN_TYPE)
        throw new OAuthError('invalid_request', `subject_token_type must be ${JWT_TOKEN_TYPE} or ${ID_TOKEN_TYPE}`);
      const requested = f.get('requested_token_type');
      if (requested !== null && requested !== ACCESS_TOKEN_TYPE) throw new OAuthError('invalid_request', `requested_token_type must be ${ACCESS_TOKEN_TYPE}`);
      const token = f.get('subject_token') ?? '';
      if (!token) throw new OAuthError('invalid_request', 'subject_token is required');
      record.subject = subjectOf(token);
      const m = AUDIENCE_RE.exec(audience);
      const found = m && find(m[1], m[2], m[3]);
      if (!m || !found)
        throw new OAuthError(
          'invalid_target',
          `The target service indicated by the "audience" parameter is invalid: no workload identity pool provider ${JSON.stringify(audience)}.`,
        );
      const resource = `//iam.googleapis.com/projects/${m[1]}/locations/global/workloadIdentityPools/${m[2]}/providers/${m[3]}`;
      record.audience = resource;
      if (found.pool.disabled || found.provider.disabled) throw new OAuthError('invalid_target', `The workload identity pool provider ${resource} is disabled.`);
      const sub = await verifySubject(token, found.provider, resource);
      if (found.provider.attributeCondition !== undefined && !parseAttributeCondition(found.provider.attributeCondition)(sub)) {
        throw new OAuthError('unauthorized_client', `The given credential is rejected by the attribute condition of provider ${resource}.`);
      }
      const poolBase = `principal://iam.googleapis.com/projects/${m[1]}/locations/global/workloadIdentityPools/${m[2]}`;
      const t = `ya29.fed-${randomBytes(24).toString('base64url')}`;
      x.federated.set(t, {
        principal: `${poolBase}/subject/${sub}`,
        poolSet: `${poolBase.replace('principal://', 'principalSet://')}/*`,
        expires: x.now() + 3600_000,
      });
      record.ok = true;
      record.subject = sub;
      return { access_token: t, issued_token_type: ACCESS_TOKEN_TYPE, token_type: 'Bearer', expires_in: 3600 };
    } catch (e) {
      record.error = (e as Error).message;
      throw e;
    }
  }

  async function generateAccessToken(account: string, req: IncomingMessage) {
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const fed = bearer ? x.federated.get(bearer) : undefined;
    const record: ImpersonationRecord = { at: x.now(), principal: fed?.principal ?? '', serviceAccount: decodeURIComponent(account), ok: false };
    x.records.impersonations.push(record);
    try {
      if (!fed || fed.expires < x.now())
        throw new HttpError(401, 'Request had invalid authentication credentials: a federated access token from the Security Token Service is required.');
      const sa = x.liveAccount(account);
      record.serviceAccount = sa.email;
      // The account's own policy, or its project's (a project-level grant covers every account in it).
      const project = x.d.projects.find((p) => p.id === sa.project);
      const members = [...sa.bindings, ...(project?.bindings ?? [])].filter((b) => b.role === WORKLOAD_IDENTITY_USER).flatMap((b) => b.members);
      if (!members.includes(fed.principal) && !members.includes(fed.poolSet)) {
        throw new HttpError(
          403,
          `Permission 'iam.serviceAccounts.getAccessToken' denied on resource (or it may not exist): ${fed.principal} has no ${WORKLOAD_IDENTITY_USER} binding on ${sa.email}.`,
        );
      }
      if (sa.disabled) throw new HttpError(400, `service account ${sa.email} is disabled`);
      const body = JSON.parse((await readBody(req)) || '{}') as { scope?: string[]; lifetime?: string };
      if (!Array.isArray(body.scope) || body.scope.length === 0) throw new HttpError(400, 'scope is required');
      const lifetime = body.lifetime === undefined ? 3600 : /^(\d+)s$/.exec(body.lifetime) ? Number(/^(\d+)s$/.exec(body.lifetime)![1]) : NaN;
      if (!(lifetime >= 1 && lifetime <= 3600)) throw new HttpError(400, `lifetime must be between 1s and 3600s, got ${JSON.stringify(body.lifetime)}`);
      const issued = x.issueToken(sa.email, lifetime);
      record.ok = true;
      return { accessToken: issued.access_token, expireTime: new Date(x.now() + lifetime * 1000).toISOString() };
    } catch (e) {
      record.error = (e as Error).message;
      throw e;
    }
  }

  return [
    ['sts-token', 'POST', /^\/v1\/token$/, (_m, req) => exchange(req)],
    ['generate-access-token', 'POST', /^\/v1\/projects\/-\/serviceAccounts\/([^/:]+):generateAccessToken$/, (m, req) => generateAccessToken(m[1], req)],
  ];
}
