// The cloud emulator's HTTP server: the IAM, Compute, Resource Manager, key-document, OAuth2 token
// and metadata-server endpoints the cloud auth method calls, answered from a description.
// Also /_emulator/* endpoints to fetch key files and mint tokens (used by `cloud-emulator mint`).

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes, verify as cryptoVerify } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { ancestry, parseDescription, type Description } from './description';
import { generateKeys, keyFile, type EmulatorKeys, type ServiceAccountKeyFile } from './keys';
import { findAccount, mintInstanceToken, mintServiceAccountJwt, signRs256, type MintInstanceOptions, type MintServiceAccountOptions } from './mint';

export interface CloudEmulatorOptions {
  description: unknown;
  host?: string;
  port?: number;
  /** Require a bearer token (from /token or the metadata server) on IAM, Compute and CRM calls. */
  requireAuth?: boolean;
  /** Service account the metadata server hands tokens for (ambient credentials on a VM). */
  metadataServiceAccount?: string;
  /** Page size of aggregated instance-group lists (to exercise paging). */
  pageSize?: number;
  /** Time source for token expiry checks (tests pass the engine's manual clock). */
  clock?: { now(): number };
  /** Keep keys in this directory so identities survive restarts (created with mode 0700). */
  keyDir?: string;
}

export interface CloudEmulator {
  url: string;
  description: Description;
  keys: EmulatorKeys;
  /** Requests served, per route name (for cache tests). */
  counts: Record<string, number>;
  /** A service-account key file whose token_uri points at this emulator. */
  keyFile(account: string, keyIndex?: number): ServiceAccountKeyFile;
  mintServiceAccountJwt(o: MintServiceAccountOptions): string;
  mintInstanceToken(o: MintInstanceOptions): string;
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly reason = status === 404 ? 'NOT_FOUND' : status === 401 ? 'UNAUTHENTICATED' : status === 403 ? 'PERMISSION_DENIED' : 'INVALID_ARGUMENT',
  ) {
    super(message);
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJwtParts(jwt: string): { header: Record<string, unknown>; payload: Record<string, unknown>; input: string; sig: Buffer } {
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

export async function startCloudEmulator(opts: CloudEmulatorOptions): Promise<CloudEmulator> {
  const d = parseDescription(opts.description);
  const keys = await generateKeys(d, opts.keyDir);
  const requireAuth = opts.requireAuth ?? true;
  const pageSize = opts.pageSize ?? 500;
  const tokens = new Map<string, { email: string; expires: number }>();
  const counts: Record<string, number> = {};
  const now = () => (opts.clock ?? Date).now();
  let url = '';

  const liveAccount = (id: string) => {
    const sa = findAccount(d, decodeURIComponent(id));
    if (!sa || sa.deleted) throw new HttpError(404, `Unknown service account ${decodeURIComponent(id)}`);
    return sa;
  };
  const issueToken = (email: string) => {
    const t = `ya29.emu-${randomBytes(24).toString('base64url')}`;
    tokens.set(t, { email, expires: now() + 3600_000 });
    return { access_token: t, expires_in: 3599, token_type: 'Bearer' };
  };
  const checkAuth = (req: IncomingMessage) => {
    if (!requireAuth) return;
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    const t = m && tokens.get(m[1]);
    if (!t || t.expires < now()) throw new HttpError(401, 'Request had invalid authentication credentials.');
  };
  const selfLinkPath = (i: { project: string; zone: string; name: string }) => `projects/${i.project}/zones/${i.zone}/instances/${i.name}`;
  const computeBase = () => `${url}/compute/v1/`;

  type Handler = (m: RegExpExecArray, req: IncomingMessage, q: URLSearchParams) => Promise<unknown> | unknown;
  const routes: [string, string, RegExp, Handler][] = [
    ['certs', 'GET', /^\/oauth2\/v1\/certs$/, () => Object.fromEntries(keys.oauth2.map((k) => [k.kid, k.certPem]))],
    [
      'x509',
      'GET',
      /^\/service_accounts\/v1\/metadata\/x509\/([^/]+)$/,
      (m) => {
        const sa = liveAccount(m[1]);
        const k = keys.accounts.get(sa.email)!;
        return Object.fromEntries([k.system, ...k.user].map((x) => [x.kid, x.certPem]));
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
        const sa = liveAccount(String(a.payload.iss ?? ''));
        if (sa.disabled) throw new HttpError(400, 'invalid_grant: account disabled');
        const key = keys.accounts.get(sa.email)!.user.find((k) => k.kid === a.header.kid);
        if (!key || a.header.alg !== 'RS256' || !cryptoVerify('RSA-SHA256', Buffer.from(a.input), key.publicKey, a.sig)) {
          throw new HttpError(400, 'invalid_grant: Invalid JWT Signature.');
        }
        if (typeof a.payload.exp !== 'number' || a.payload.exp < now() / 1000 - 60) throw new HttpError(400, 'invalid_grant: expired assertion');
        return issueToken(sa.email);
      },
    ],
    [
      'metadata-token',
      'GET',
      /^\/computeMetadata\/v1\/instance\/service-accounts\/default\/token$/,
      (_m, req) => {
        if (req.headers['metadata-flavor'] !== 'Google') throw new HttpError(403, 'Missing Metadata-Flavor: Google header');
        if (!opts.metadataServiceAccount) throw new HttpError(404, 'no service account on this emulated instance');
        return issueToken(liveAccount(opts.metadataServiceAccount).email);
      },
    ],
    [
      'iam-get',
      'GET',
      /^\/v1\/projects\/[^/]+\/serviceAccounts\/([^/:]+)$/,
      (m, req) => {
        checkAuth(req);
        const sa = liveAccount(m[1]);
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
        checkAuth(req);
        const sa = liveAccount(m[1]);
        const body = JSON.parse((await readBody(req)) || '{}') as { payload?: string };
        let payload: Record<string, unknown>;
        try {
          payload = JSON.parse(body.payload ?? '');
        } catch {
          throw new HttpError(400, 'payload must be a JSON object string');
        }
        const key = keys.accounts.get(sa.email)!.system;
        return { keyId: key.kid, signedJwt: signRs256(key, payload) };
      },
    ],
    [
      'instance-get',
      'GET',
      /^\/compute\/v1\/projects\/([^/]+)\/zones\/([^/]+)\/instances\/([^/]+)$/,
      (m, req) => {
        checkAuth(req);
        const i = d.instances.find((x) => x.project === m[1] && x.zone === m[2] && x.name === m[3]);
        if (!i) throw new HttpError(404, `The resource 'projects/${m[1]}/zones/${m[2]}/instances/${m[3]}' was not found`);
        const sa = findAccount(d, i.serviceAccount)!;
        return {
          kind: 'compute#instance',
          id: i.id,
          name: i.name,
          creationTimestamp: i.creationTimestamp,
          zone: `${computeBase()}projects/${i.project}/zones/${i.zone}`,
          status: i.status,
          labels: i.labels,
          selfLink: computeBase() + selfLinkPath(i),
          serviceAccounts: [{ email: sa.email, scopes: ['https://www.googleapis.com/auth/cloud-platform'] }],
        };
      },
    ],
    [
      'groups-aggregated',
      'GET',
      /^\/compute\/v1\/projects\/([^/]+)\/aggregated\/instanceGroups$/,
      (m, req, q) => {
        checkAuth(req);
        if (!d.projects.some((p) => p.id === m[1])) throw new HttpError(404, `project ${m[1]} not found`);
        const all = d.instanceGroups.filter((g) => g.project === m[1]);
        const start = Number(q.get('pageToken') ?? '0') || 0;
        const page = all.slice(start, start + pageSize);
        const items: Record<string, { instanceGroups: { name: string }[] }> = {};
        for (const g of page) {
          const scope = g.zone ? `zones/${g.zone}` : `regions/${g.region}`;
          (items[scope] ??= { instanceGroups: [] }).instanceGroups.push({ name: g.name });
        }
        const next = start + pageSize < all.length ? { nextPageToken: String(start + pageSize) } : {};
        return { kind: 'compute#instanceGroupAggregatedList', items, ...next };
      },
    ],
    [
      'group-list-instances',
      'POST',
      /^\/compute\/v1\/projects\/([^/]+)\/(zones|regions)\/([^/]+)\/instanceGroups\/([^/]+)\/listInstances$/,
      async (m, req, q) => {
        checkAuth(req);
        await readBody(req);
        const g = d.instanceGroups.find(
          (x) => x.project === m[1] && x.name === m[4] && (m[2] === 'zones' ? x.zone === m[3] : x.region === m[3]),
        );
        if (!g) throw new HttpError(404, `The resource 'projects/${m[1]}/${m[2]}/${m[3]}/instanceGroups/${m[4]}' was not found`);
        const filter = /^instance eq (.+)$/.exec(q.get('filter') ?? '');
        const members = g.instances
          .map((n) => d.instances.find((i) => i.project === g.project && i.name === n)!)
          .filter((i) => !filter || filter[1].trim().endsWith('/' + selfLinkPath(i)));
        return { kind: 'compute#instanceGroupsListInstances', items: members.map((i) => ({ instance: computeBase() + selfLinkPath(i), status: i.status })) };
      },
    ],
    [
      'ancestry',
      'POST',
      /^\/v1\/projects\/([^/:]+):getAncestry$/,
      async (m, req) => {
        checkAuth(req);
        await readBody(req);
        const a = ancestry(d, decodeURIComponent(m[1]));
        if (!a) throw new HttpError(403, `The caller does not have permission on project ${m[1]}`);
        return { ancestor: a.map((x) => ({ resourceId: x })) };
      },
    ],
    [
      'emu-key-file',
      'GET',
      /^\/_emulator\/key-file\/([^/]+)$/,
      (m, _req, q) => api.keyFile(decodeURIComponent(m[1]), Number(q.get('key') ?? '0')),
    ],
    [
      'emu-mint-sa',
      'POST',
      /^\/_emulator\/mint\/service-account$/,
      async (_m, req) => ({ jwt: api.mintServiceAccountJwt(JSON.parse((await readBody(req)) || '{}')) }),
    ],
    [
      'emu-mint-instance',
      'POST',
      /^\/_emulator\/mint\/instance$/,
      async (_m, req) => ({ jwt: api.mintInstanceToken(JSON.parse((await readBody(req)) || '{}')) }),
    ],
  ];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const u = new URL(req.url ?? '/', 'http://emulator');
    try {
      for (const [name, method, re, fn] of routes) {
        const m = re.exec(u.pathname);
        if (!m) continue;
        if (req.method !== method) throw new HttpError(405, `method ${req.method} not allowed`);
        counts[name] = (counts[name] ?? 0) + 1;
        const out = await fn(m, req, u.searchParams);
        // Key documents are cacheable, as Google's are (its max-age is several hours).
        const cache = name === 'certs' || name === 'x509' ? { 'cache-control': 'public, max-age=3600' } : {};
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', ...cache }).end(JSON.stringify(out));
        return;
      }
      throw new HttpError(404, `no emulated endpoint for ${u.pathname}`);
    } catch (e) {
      const he = e instanceof HttpError ? e : new HttpError(400, e instanceof Error ? e.message : String(e));
      res
        .writeHead(he.status, { 'content-type': 'application/json; charset=utf-8' })
        .end(JSON.stringify({ error: { code: he.status, message: he.message, status: he.reason } }));
    }
  };

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  url = `http://${host}:${addr.port}`;

  const api: CloudEmulator = {
    url,
    description: d,
    keys,
    counts,
    keyFile(account, keyIndex = 0) {
      const sa = findAccount(d, account);
      if (!sa) throw new Error(`unknown service account ${JSON.stringify(account)}`);
      const key = keys.accounts.get(sa.email)!.user[keyIndex];
      if (!key) throw new Error(`service account ${sa.email} has no user-managed key #${keyIndex}`);
      return keyFile(sa, key, `${url}/token`);
    },
    mintServiceAccountJwt: (o) => mintServiceAccountJwt(d, keys, { now: Math.floor(now() / 1000), ...o }),
    mintInstanceToken: (o) => mintInstanceToken(d, keys, { now: Math.floor(now() / 1000), ...o }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return api;
}
