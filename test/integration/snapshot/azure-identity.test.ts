// Azure's managed and environment auth modes, served through @azure/identity's credential chain
// (cloudthree_auth_mode=managed and environment; azure_auth_mode through the snapshot agent, which
// builds the same target): snapshots land in Azurite (OAuth on, HTTPS) with a bearer token the
// credential fetched from a loopback identity endpoint (App Service's IDENTITY_ENDPOINT protocol),
// never the cloud's metadata address. Before, every attempt failed telling the user to run the
// config on Vault Enterprise.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { api } from '../../support/engine';
import { startEngineProcess, type EngineProcess } from '../../support/engine-process';

const ACCOUNT = 'devstoreaccount1';
const CLIENT_ID = '00000000-0000-0000-0000-00000000c1d0';
let dir: string;
let cert: string;
let azurite: ChildProcess;
let blobUrl: string;
let identity: Server;
let identityUrl: string;
const identityCalls: { clientId: string | null; header: string | undefined; resource: string | null }[] = [];
let engine: EngineProcess;

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
/** A token as Entra ID's would look to Azurite's basic OAuth check (audience, issuer, lifetime). */
function storageToken(): string {
  const now = Math.floor(Date.now() / 1000);
  const claims = { aud: 'https://storage.azure.com', iss: 'https://sts.windows.net/11111111-2222-3333-4444-555555555555/', iat: now - 10, nbf: now - 10, exp: now + 3600 };
  return `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(claims)}.c2lnbmF0dXJl`;
}

/** One request to Azurite over its HTTPS, trusting the test's certificate. */
function blob(method: string, path: string): Promise<{ status: number; text: string }> {
  return new Promise((res, rej) => {
    const u = new URL(`${blobUrl}${path}`);
    const r = httpsRequest(
      u,
      { method, ca: readFileSync(cert), headers: { authorization: `Bearer ${storageToken()}`, 'x-ms-version': '2021-12-02', 'content-length': '0' } },
      (m) => {
        let text = '';
        m.on('data', (d) => (text += d));
        m.on('end', () => res({ status: m.statusCode ?? 0, text }));
      },
    );
    r.on('error', rej);
    r.end();
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kw-azure-identity-'));
  cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
    { stdio: 'ignore' },
  );
  const bin = resolve(__dirname, '../../../node_modules/.bin/azurite-blob');
  azurite = spawn(
    bin,
    [
      '--blobHost',
      '127.0.0.1',
      '--blobPort',
      '0',
      '--location',
      join(dir, 'azurite'),
      '--oauth',
      'basic',
      '--cert',
      cert,
      '--key',
      key,
      '--disableTelemetry',
      '--skipApiVersionCheck',
      '--loose',
      '--silent',
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  azurite.stderr!.resume();
  const port = await new Promise<number>((res, rej) => {
    let out = '';
    azurite.stdout!.on('data', (d) => {
      out += d;
      const m = /successfully listens on https:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) res(Number(m[1]));
    });
    azurite.once('exit', (code) => rej(new Error(`azurite exited with ${code}: ${out}`)));
  });
  blobUrl = `https://127.0.0.1:${port}/${ACCOUNT}`;
  for (const c of ['managed', 'environment']) expect((await blob('PUT', `/${c}?restype=container`)).status).toBe(201);

  // App Service's managed identity protocol (2019-08-01), which @azure/identity speaks when
  // IDENTITY_ENDPOINT and IDENTITY_HEADER are set.
  identity = createServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    identityCalls.push({ clientId: q.get('client_id'), header: req.headers['x-identity-header'] as string | undefined, resource: q.get('resource') });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ access_token: storageToken(), expires_on: String(Math.floor(Date.now() / 1000) + 3600), resource: q.get('resource'), token_type: 'Bearer' }));
  });
  await new Promise<void>((r) => identity.listen(0, '127.0.0.1', r));
  identityUrl = `http://127.0.0.1:${(identity.address() as { port: number }).port}/msi/token`;

  // Only the loopback identity endpoint: no other Azure setting of this machine reaches the engine.
  const env: Record<string, string> = {};
  for (const k of Object.keys(process.env)) if (/^(AZURE_|MSI_|IDENTITY_|IMDS_)/.test(k)) env[k] = '';
  engine = await startEngineProcess({
    dataDir: join(dir, 'engine'),
    rootToken: 'root',
    env: { ...env, IDENTITY_ENDPOINT: identityUrl, IDENTITY_HEADER: 'header-secret', NODE_EXTRA_CA_CERTS: cert },
  });
}, 60_000);
/** Stops a child and waits for it to be gone, so nothing writes into the directory removed next. */
async function stopChild(c: ChildProcess | undefined): Promise<void> {
  if (!c || c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise((r) => c.once('exit', r));
  c.kill('SIGTERM');
  await exited;
}

afterAll(async () => {
  await stopChild(engine?.child);
  await stopChild(azurite);
  await new Promise<void>((r) => (identity ? identity.close(() => r()) : r()));
  rmSync(dir, { recursive: true, force: true });
});

async function waitForAttempt(name: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 300; i++) {
    const s = (await api(engine.url, 'GET', `sys/storage/raft/snapshot-auto/status/${name}`, { token: 'root' })).body?.data;
    if (s?.last_snapshot_end) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no attempt of ${name} finished`);
}

test.each([
  ['managed', { cloudthree_account_name: ACCOUNT, cloudthree_client_id: CLIENT_ID }, CLIENT_ID],
  ['environment', { cloudthree_account_name: ACCOUNT }, null],
])(
  'cloudthree_auth_mode=%s: the snapshot is stored with a token from the identity endpoint',
  async (mode, extra, clientId) => {
    const before = identityCalls.length;
    const body = {
      storage_type: 'cloudthree-store',
      interval: 1,
      path_prefix: 'raft/',
      cloudthree_container_name: mode,
      cloudthree_endpoint: blobUrl,
      cloudthree_auth_mode: mode,
      ...extra,
    };
    const w = await api(engine.url, 'POST', `sys/storage/raft/snapshot-auto/config/az-${mode}`, { token: 'root', body });
    expect([w.status, w.text]).toEqual([204, '']);
    const status = await waitForAttempt(`az-${mode}`);
    expect(status.last_snapshot_error).toBe('');
    expect(status.last_snapshot_url).toMatch(new RegExp(`^${blobUrl}/${mode}/raft/vault-snapshot-\\d+\\.snap$`));
    await api(engine.url, 'DELETE', `sys/storage/raft/snapshot-auto/config/az-${mode}`, { token: 'root' });
    const listed = await blob('GET', `/${mode}?restype=container&comp=list`);
    expect(listed.text).toContain(`<Name>raft/${String(status.last_snapshot_url).split('/').pop()}</Name>`);
    const calls = identityCalls.slice(before);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls[0]).toEqual({ clientId, header: 'header-secret', resource: 'https://storage.azure.com' });
  },
  60_000,
);
