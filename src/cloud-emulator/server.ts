// The cloud emulator's HTTP server: the IAM, Compute, Resource Manager, key-document, OAuth2 token
// and metadata-server endpoints the cloud auth method calls, answered from a description.
// Also /_emulator/* endpoints to fetch key files and mint tokens (used by `cloud-emulator mint`).

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { parseDescription, type DescribedInstance, type Description } from './description';
import { generateKeys, keyFile, type EmulatorKeys, type ServiceAccountKeyFile } from './keys';
import { findAccount, mintInstanceToken, mintServiceAccountJwt, type MintInstanceOptions, type MintServiceAccountOptions } from './mint';
import { HttpError, OAuthError, readBody, type EmulatorRecords, type EmulatorRoute, type EmulatorScope, type FederatedToken } from './http';
import { identityRoutes } from './routes-identity';
import { computeRoutes } from './routes-compute';
import { federationRoutes } from './routes-federation';
import { keyRoutes } from './routes-keys';

export interface CloudEmulatorOptions {
  description: unknown;
  host?: string;
  port?: number;
  /** Require a bearer token (from /token or the metadata server) on IAM, Compute and CRM calls. */
  requireAuth?: boolean;
  /** Service account the metadata server hands tokens for (ambient credentials on a VM). */
  metadataServiceAccount?: string;
  /** Instance whose identity tokens the metadata server's identity endpoint mints. */
  metadataInstance?: string;
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
  /** STS exchanges, impersonations and key creations/deletions seen (no tokens). */
  records: EmulatorRecords;
  /** Live user-managed key ids of an account, as the IAM keys list shows them. */
  listKeyIds(account: string): string[];
  /** A service-account key file whose token_uri points at this emulator. */
  keyFile(account: string, keyIndex?: number): ServiceAccountKeyFile;
  mintServiceAccountJwt(o: MintServiceAccountOptions): string;
  mintInstanceToken(o: MintInstanceOptions): string;
  /** Deletes a key at the provider: it leaves the key documents (minting with it still works, as a stolen key would). */
  deleteKey(kid: string): void;
  /** Disables, re-enables or deletes a service account. */
  updateServiceAccount(account: string, change: { disabled?: boolean; deleted?: boolean }): void;
  /** Changes an instance's status (e.g. TERMINATED once stopped). */
  setInstanceStatus(name: string, status: DescribedInstance['status']): void;
  /** The Cache-Control header of a key document (null: none). Default: public, max-age=3600, as Google's. */
  setKeyDocCacheControl(doc: 'certs' | 'x509', value: string | null): void;
  /** Makes a route (by its name in `counts`) answer this status until set back to null (an outage). */
  failRoute(name: string, status: number | null): void;
  close(): Promise<void>;
}

export async function startCloudEmulator(opts: CloudEmulatorOptions): Promise<CloudEmulator> {
  const d = parseDescription(opts.description);
  const keys = await generateKeys(d, opts.keyDir);
  const requireAuth = opts.requireAuth ?? true;
  const pageSize = opts.pageSize ?? 500;
  const tokens = new Map<string, { email: string; expires: number }>();
  const counts: Record<string, number> = {};
  const deletedKids = new Set<string>();
  const failing = new Map<string, number>();
  const keyDocCache: Record<'certs' | 'x509', string | null> = { certs: 'public, max-age=3600', x509: 'public, max-age=3600' };
  const now = () => (opts.clock ?? Date).now();
  let url = '';

  const liveAccount = (id: string) => {
    const sa = findAccount(d, decodeURIComponent(id));
    if (!sa || sa.deleted) throw new HttpError(404, `Unknown service account ${decodeURIComponent(id)}`);
    return sa;
  };
  const issueToken = (email: string, lifetimeSeconds = 3600) => {
    const t = `ya29.emu-${randomBytes(24).toString('base64url')}`;
    tokens.set(t, { email, expires: now() + lifetimeSeconds * 1000 });
    return { access_token: t, expires_in: lifetimeSeconds - 1, token_type: 'Bearer' };
  };
  const federated = new Map<string, FederatedToken>();
  const records: EmulatorRecords = { exchanges: [], impersonations: [], keyEvents: [] };
  const checkAuth = (req: IncomingMessage) => {
    if (!requireAuth) return;
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    const t = m && tokens.get(m[1]);
    if (!t || t.expires < now()) throw new HttpError(401, 'Request had invalid authentication credentials.');
  };
  // url and api are set once the server listens; handlers only run after that.
  const scope: EmulatorScope = {
    d,
    keys,
    metadata: { serviceAccount: opts.metadataServiceAccount, instance: opts.metadataInstance },
    pageSize,
    mintInstanceToken: (o) => api.mintInstanceToken(o),
    now,
    computeBase: () => `${url}/compute/v1/`,
    liveAccount,
    keyDeleted: (kid) => deletedKids.has(kid),
    deleteKey: (kid) => void deletedKids.add(kid),
    issueToken,
    checkAuth,
    federated,
    records,
    tokenUri: () => `${url}/token`,
  };
  const routes: EmulatorRoute[] = [
    ...identityRoutes(scope),
    ...computeRoutes(scope),
    ...federationRoutes(scope),
    ...keyRoutes(scope),
    ['emu-key-file', 'GET', /^\/_emulator\/key-file\/([^/]+)$/, (m, _req, q) => api.keyFile(decodeURIComponent(m[1]), Number(q.get('key') ?? '0'))],
    ['emu-mint-sa', 'POST', /^\/_emulator\/mint\/service-account$/, async (_m, req) => ({ jwt: api.mintServiceAccountJwt(JSON.parse((await readBody(req)) || '{}')) })],
    ['emu-mint-instance', 'POST', /^\/_emulator\/mint\/instance$/, async (_m, req) => ({ jwt: api.mintInstanceToken(JSON.parse((await readBody(req)) || '{}')) })],
  ];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const u = new URL(req.url ?? '/', 'http://emulator');
    try {
      const matching = routes.filter(([, , re]) => re.test(u.pathname));
      if (matching.length > 0 && !matching.some(([, method]) => method === req.method)) throw new HttpError(405, `method ${req.method} not allowed`);
      for (const [name, method, re, fn] of matching) {
        const m = re.exec(u.pathname);
        if (!m || method !== req.method) continue;
        counts[name] = (counts[name] ?? 0) + 1;
        const outage = failing.get(name);
        if (outage !== undefined) throw new HttpError(outage, `${name} is unavailable (emulated outage)`);
        const out = await fn(m, req, u.searchParams);
        if (out && typeof out === 'object' && '__raw' in out) {
          // The metadata server answers identity tokens as plain text.
          res.writeHead(200, { 'content-type': 'application/text' }).end(String((out as { __raw: string }).__raw));
          return;
        }
        // Key documents are cacheable, as Google's are (its max-age is several hours).
        const cc = name === 'certs' || name === 'x509' ? keyDocCache[name] : null;
        const cache = cc === null ? {} : { 'cache-control': cc };
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', ...cache }).end(JSON.stringify(out));
        return;
      }
      throw new HttpError(404, `no emulated endpoint for ${u.pathname}`);
    } catch (e) {
      const he = e instanceof HttpError ? e : new HttpError(400, e instanceof Error ? e.message : String(e));
      if (he instanceof OAuthError) {
        res.writeHead(he.status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: he.code, error_description: he.message }));
        return;
      }
      res.writeHead(he.status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: { code: he.status, message: he.message, status: he.reason } }));
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
    records,
    listKeyIds(account) {
      const sa = findAccount(d, account);
      if (!sa) throw new Error(`unknown service account ${JSON.stringify(account)}`);
      return keys.accounts
        .get(sa.email)!
        .user.filter((k) => !deletedKids.has(k.kid))
        .map((k) => k.kid);
    },
    keyFile(account, keyIndex = 0) {
      const sa = findAccount(d, account);
      if (!sa) throw new Error(`unknown service account ${JSON.stringify(account)}`);
      const key = keys.accounts.get(sa.email)!.user[keyIndex];
      if (!key) throw new Error(`service account ${sa.email} has no user-managed key #${keyIndex}`);
      return keyFile(sa, key, `${url}/token`);
    },
    mintServiceAccountJwt: (o) => mintServiceAccountJwt(d, keys, { now: Math.floor(now() / 1000), ...o }),
    mintInstanceToken: (o) => mintInstanceToken(d, keys, { now: Math.floor(now() / 1000), ...o }),
    deleteKey: (kid) => void deletedKids.add(kid),
    updateServiceAccount(account, change) {
      const sa = findAccount(d, account);
      if (!sa) throw new Error(`unknown service account ${JSON.stringify(account)}`);
      Object.assign(sa, change);
    },
    setInstanceStatus(name, status) {
      const inst = d.instances.find((i) => i.name === name);
      if (!inst) throw new Error(`unknown instance ${JSON.stringify(name)}`);
      inst.status = status;
    },
    setKeyDocCacheControl: (doc, value) => void (keyDocCache[doc] = value),
    failRoute: (name, status) => void (status === null ? failing.delete(name) : failing.set(name, status)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return api;
}
