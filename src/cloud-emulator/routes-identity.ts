// The emulator's identity endpoints: OAuth2 certs, service-account x509 keys, the OAuth2 token
// exchange (JWT bearer), the metadata server (access and identity tokens), IAM get and signJwt.

import { verify as cryptoVerify } from 'node:crypto';
import { HttpError, parseJwtParts, readBody, type EmulatorRoute, type EmulatorScope } from './http';
import { signRs256 } from './mint';

export function identityRoutes(x: EmulatorScope): EmulatorRoute[] {
  return [
    ['certs', 'GET', /^\/oauth2\/v1\/certs$/, () => Object.fromEntries(x.keys.oauth2.filter((k) => !x.keyDeleted(k.kid)).map((k) => [k.kid, k.certPem]))],
    [
      'x509',
      'GET',
      /^\/service_accounts\/v1\/metadata\/x509\/([^/]+)$/,
      (m) => {
        const sa = x.liveAccount(m[1]);
        const k = x.keys.accounts.get(sa.email)!;
        return Object.fromEntries([k.system, ...k.user].filter((key) => !x.keyDeleted(key.kid)).map((key) => [key.kid, key.certPem]));
      },
    ],
    [
      'token',
      'POST',
      /^\/token$/,
      async (_m, req) => {
        const body = await readBody(req);
        const form = req.headers['content-type']?.includes('json') ? new URLSearchParams(JSON.parse(body || '{}')) : new URLSearchParams(body);
        if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') throw new HttpError(400, 'unsupported grant_type');
        const a = parseJwtParts(form.get('assertion') ?? '');
        const sa = x.liveAccount(String(a.payload.iss ?? ''));
        if (sa.disabled) throw new HttpError(400, 'invalid_grant: account disabled');
        const key = x.keys.accounts.get(sa.email)!.user.find((k) => k.kid === a.header.kid);
        if (!key || x.keyDeleted(key.kid) || a.header.alg !== 'RS256' || !cryptoVerify('RSA-SHA256', Buffer.from(a.input), key.publicKey, a.sig)) {
          throw new HttpError(400, 'invalid_grant: Invalid JWT Signature.');
        }
        if (typeof a.payload.exp !== 'number' || a.payload.exp < x.now() / 1000 - 60) throw new HttpError(400, 'invalid_grant: expired assertion');
        return x.issueToken(sa.email);
      },
    ],
    [
      'metadata-token',
      'GET',
      /^\/computeMetadata\/v1\/instance\/service-accounts\/default\/token$/,
      (_m, req) => {
        if (req.headers['metadata-flavor'] !== 'Google') throw new HttpError(403, 'Missing Metadata-Flavor: Google header');
        if (!x.metadata.serviceAccount) throw new HttpError(404, 'no service account on this emulated instance');
        return x.issueToken(x.liveAccount(x.metadata.serviceAccount).email);
      },
    ],
    [
      'metadata-identity',
      'GET',
      /^\/computeMetadata\/v1\/instance\/service-accounts\/default\/identity$/,
      (_m, req, q) => {
        if (req.headers['metadata-flavor'] !== 'Google') throw new HttpError(403, 'Missing Metadata-Flavor: Google header');
        if (!x.metadata.instance) throw new HttpError(404, 'no instance behind this emulated metadata server');
        const audience = q.get('audience');
        if (!audience) throw new HttpError(400, 'audience is required');
        const full = q.get('format') === 'full';
        return { __raw: x.mintInstanceToken({ instance: x.metadata.instance, audience, claims: full ? {} : { google: undefined } }) };
      },
    ],
    [
      'iam-get',
      'GET',
      /^\/v1\/projects\/[^/]+\/serviceAccounts\/([^/:]+)$/,
      (m, req) => {
        x.checkAuth(req);
        const sa = x.liveAccount(m[1]);
        return {
          name: `projects/${sa.project}/serviceAccounts/${sa.email}`,
          projectId: sa.project,
          uniqueId: sa.uniqueId,
          email: sa.email,
          displayName: sa.displayName ?? '',
          oauth2ClientId: sa.uniqueId,
          disabled: sa.disabled,
        };
      },
    ],
    [
      'sign-jwt',
      'POST',
      /^\/v1\/projects\/[^/]+\/serviceAccounts\/([^/:]+):signJwt$/,
      async (m, req) => {
        x.checkAuth(req);
        const sa = x.liveAccount(m[1]);
        const body = JSON.parse((await readBody(req)) || '{}') as { payload?: string };
        let payload: Record<string, unknown>;
        try {
          payload = JSON.parse(body.payload ?? '');
        } catch {
          throw new HttpError(400, 'payload must be a JSON object string');
        }
        const key = x.keys.accounts.get(sa.email)!.system;
        return { keyId: key.kid, signedJwt: signRs256(key, payload) };
      },
    ],
  ];
}
