// The client's HTTP behaviour against a scripted loopback server: Vault headers, retries with
// backoff on 429/5xx/dropped connections, no retry on 4xx, typed errors, 404 conventions.

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { VaultClient } from '../../../src/client/vault-client';
import { VaultClientError } from '../../../src/client/errors';
import { AddressConflictError, settingsFromEnv } from '../../../src/client/options';

type Step = (req: IncomingMessage, res: import('node:http').ServerResponse) => void;
let server: Server;
let url: string;
let script: Step[] = [];
const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const step = script.shift() ?? ((_q, r) => r.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{}}'));
      step(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  script = [];
  seen.length = 0;
});

const json =
  (status: number, body: unknown): Step =>
  (_q, r) =>
    r.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const drop: Step = (q) => q.socket.destroy();

function client(extra: Partial<ConstructorParameters<typeof VaultClient>[0]> = {}, delays: number[] = []) {
  return new VaultClient(
    { address: url, token: 'tok', namespace: 'team', dialect: 'keyward', retry: { attempts: 4, baseDelayMs: 100, maxDelayMs: 250 }, ...extra },
    { sleep: async (ms) => void delays.push(ms), random: () => 1 },
  );
}

test('sends the token and namespace headers, and JSON bodies', async () => {
  const c = client();
  script = [json(200, { data: null, warnings: ['w1'] })];
  expect(await c.write('auth/cloud/role/web', { type: 'iam' })).toEqual(['w1']);
  expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/auth/cloud/role/web', body: '{"type":"iam"}' });
  expect(seen[0].headers['x-vault-token']).toBe('tok');
  expect(seen[0].headers['x-vault-namespace']).toBe('team');
  await c.close();
});

test('snapshot paths are root-namespace only: no namespace header', async () => {
  const c = client();
  // sys/health first: the edition check (an engine in oss edition has no snapshot-auto).
  script = [json(200, { version: '1.19.0+keyward', enterprise: true }), json(200, { data: { keys: ['b', 'a'] } })];
  expect(await c.snapshots.list()).toEqual(['a', 'b']);
  expect(seen[0].url).toBe('/v1/sys/health');
  expect(seen[1].url).toBe('/v1/sys/storage/raft/snapshot-auto/config/?list=true');
  expect(seen[1].headers['x-vault-namespace']).toBeUndefined();
  await c.close();
});

test('retries 500, 429 and dropped connections with growing, capped backoff', async () => {
  const delays: number[] = [];
  const c = client({}, delays);
  script = [json(500, { errors: ['boom'] }), json(429, { errors: [] }), drop, json(200, { data: { role_id: 'x' } })];
  expect(await c.cloud('cloud').readRole('web')).toEqual({ role_id: 'x' });
  expect(delays).toEqual([100, 200, 250]);
  await c.close();
});

test('gives up after the attempts with a typed error naming method, path, status and messages', async () => {
  const c = client();
  script = [json(503, { errors: ['sealed'] }), json(503, { errors: ['sealed'] }), json(503, { errors: ['sealed'] }), json(503, { errors: ['Vault is sealed'] })];
  const e = await c
    .cloud('cloud')
    .writeConfig({ iam_alias: 'role_id' })
    .catch((x) => x);
  expect(VaultClientError.is(e)).toBe(true);
  expect(e).toMatchObject({ status: 503, method: 'POST', path: 'auth/cloud/config', errors: ['Vault is sealed'], attempts: 4 });
  expect(e.message).toBe(`POST ${url}/v1/auth/cloud/config: HTTP 503: Vault is sealed (attempt 4 of 4)`);
  expect(e.retryable).toBe(true);
  await c.close();
});

test('4xx is final at once', async () => {
  const c = client();
  script = [json(400, { errors: ['role type cannot be changed'] })];
  const e = await c
    .cloud('cloud')
    .writeRole('web', { type: 'vm' })
    .catch((x) => x);
  expect(e).toMatchObject({ status: 400, attempts: 1, errors: ['role type cannot be changed'], retryable: false });
  expect(seen).toHaveLength(1);
  await c.close();
});

test('connection refused is status 0 after retries', async () => {
  const c = new VaultClient({ address: 'http://127.0.0.1:1', retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 } }, { sleep: async () => undefined });
  const e = await c.read('sys/auth').catch((x) => x);
  expect(e).toMatchObject({ status: 0, method: 'GET', attempts: 2 });
  expect(e.message).toBe(
    'GET http://127.0.0.1:1/v1/sys/auth: no response from the server (ECONNREFUSED) (attempt 2 of 2): check that the server is running at http://127.0.0.1:1 and that VAULT_ADDR (or the address setting) points at it',
  );
  await c.close();
});

test('404 is absent on read, empty on list, done on delete', async () => {
  const c = client();
  script = [json(404, { errors: [] }), json(404, { errors: [] }), json(404, { errors: [] })];
  expect(await c.cloud('cloud').readRole('nope')).toBeUndefined();
  expect(await c.cloud('cloud').listRoles()).toEqual([]);
  await expect(c.cloud('cloud').deleteRole('nope')).resolves.toBeUndefined();
  expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['GET /v1/auth/cloud/role/nope', 'GET /v1/auth/cloud/roles/?list=true', 'DELETE /v1/auth/cloud/role/nope']);
  await c.close();
});

test('auth mounts are read from data, keyed without the trailing slash', async () => {
  const c = client();
  script = [json(200, { data: { 'cloud/': { type: 'cloud', description: 'd', accessor: 'a1' }, 'token/': { type: 'token', description: '' } } })];
  const m = await c.sys.listAuthMounts();
  expect([...m.keys()]).toEqual(['cloud', 'token']);
  expect(m.get('cloud')).toMatchObject({ type: 'cloud', description: 'd', accessor: 'a1' });
  await c.close();
});

test('settings follow VAULT_* with flags first; a VAULT_ADDR other than the declared address is refused; the declared namespace wins over VAULT_NAMESPACE, with a warning', () => {
  const env = { VAULT_ADDR: 'https://env:8200', VAULT_TOKEN: 't', VAULT_NAMESPACE: 'ns', VAULT_SKIP_VERIFY: 'true' };
  expect(() => settingsFromEnv({}, env, { address: 'https://manifest' })).toThrow(
    new AddressConflictError(
      "VAULT_ADDR (https://env:8200) differs from the address the stack declares (https://manifest); refusing to send the token to either. Unset VAULT_ADDR (or set it to https://manifest), or change the stack's address.",
    ),
  );
  expect(() => settingsFromEnv({}, { KEYWARD_SNAPSHOT_ADDR: 'http://agent-a' }, { snapshotAddress: 'http://agent-b' })).toThrow(AddressConflictError);
  expect(settingsFromEnv({ address: 'https://flag' }, env, { address: 'https://manifest' })).toMatchObject({
    address: 'https://flag',
    token: 't',
    tokenSource: 'VAULT_TOKEN',
    namespace: 'ns',
    tlsSkipVerify: true,
  });
  // A stray VAULT_NAMESPACE never moves a stack that declares its namespace; --namespace still does.
  expect(settingsFromEnv({}, env, { address: 'https://env:8200', namespace: 'team' })).toMatchObject({
    namespace: 'team',
    addressWarning: "VAULT_NAMESPACE (ns) differs from the namespace the stack declares (team); using team. Unset VAULT_NAMESPACE or change the stack's namespace.",
  });
  expect(settingsFromEnv({ namespace: 'flag' }, env, { address: 'https://env:8200', namespace: 'team' })).toMatchObject({ namespace: 'flag' });
  expect(settingsFromEnv({}, env, { address: 'https://env:8200', namespace: 'ns/' }).addressWarning).toBeUndefined();
  expect(settingsFromEnv({}, env, { address: 'https://ENV:8200/' }).addressWarning).toBeUndefined();
  expect(settingsFromEnv({}, env).address).toBe('https://env:8200');
  expect(settingsFromEnv({ address: 'https://flag' }, env).address).toBe('https://flag');
  expect(settingsFromEnv({}, {}, { address: 'https://manifest', namespace: 'm' })).toMatchObject({ address: 'https://manifest', namespace: 'm', tlsSkipVerify: false });
  expect(settingsFromEnv({}, {}).address).toBe('http://127.0.0.1:8200');
});

test('a 403 to a request without a token says to set VAULT_TOKEN', async () => {
  const c = new VaultClient({ address: url, dialect: 'keyward', retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });
  script = [json(403, { errors: ['permission denied'] })];
  await expect(c.read('sys/auth')).rejects.toThrow(`GET ${url}/v1/sys/auth: HTTP 403: permission denied (no token was sent: set VAULT_TOKEN)`);
  await c.close();
});

test('an address with a path prefix (behind a proxy) keeps it before /v1/', async () => {
  const c = new VaultClient({ address: `${url}/vault/`, dialect: 'keyward', token: 't' });
  script = [json(200, { data: { ok: true } })];
  expect(await c.read('sys/auth')).toEqual({ ok: true });
  expect(seen[0].url).toBe('/vault/v1/sys/auth');
  await c.close();
});

describe('non-idempotent writes, Retry-After and read-after-write (issue 29, defect 9)', () => {
  test('mount enable, remount and rotate-root are not retried after a 5xx or a lost response', async () => {
    for (const [name, call] of [
      ['enable', (c: VaultClient) => c.sys.enableAuth('cloud', { type: 'cloud' })],
      ['remount', (c: VaultClient) => c.sys.remount('cloud', 'moved')],
      ['rotate-root', (c: VaultClient) => c.cloud('cloud').rotateRoot()],
    ] as const) {
      for (const failure of [json(500, { errors: ['boom'] }), drop]) {
        seen.length = 0;
        script = [failure, json(200, { data: {} })];
        const c = client();
        await expect(call(c)).rejects.toBeInstanceOf(VaultClientError);
        // Sent once; a remount then reads the mount table instead (GET sys/auth) to learn what happened.
        expect({ name, sent: seen.filter((r) => r.method === 'POST').length }).toEqual({ name, sent: 1 });
        await c.close();
      }
    }
  });

  test('a 429 is retried for them too: the server did nothing', async () => {
    script = [json(429, { errors: ['rate limited'] }), json(204, {})];
    const c = client();
    await c.sys.enableAuth('cloud', { type: 'cloud' });
    expect(seen.filter((r) => r.method === 'POST')).toHaveLength(2);
    await c.close();
  });

  test('429 honours Retry-After as a floor under the backoff; an idempotent write still retries 5xx', async () => {
    const delays: number[] = [];
    script = [(_q, r) => r.writeHead(429, { 'retry-after': '2', 'content-type': 'application/json' }).end('{"errors":["slow down"]}'), json(500, {}), json(204, {})];
    const c = client({}, delays);
    await c.write('auth/cloud/role/web', { type: 'iam' });
    expect(delays).toEqual([2000, 200]);
    await c.close();
  });

  test("a write's X-Vault-Index is sent on later requests; 412 (a standby behind) is retried", async () => {
    script = [(_q, r) => r.writeHead(204, { 'x-vault-index': 'state-1' }).end(), json(412, { errors: ['required index state not present'] }), json(200, { data: { a: 1 } })];
    const c = client();
    await c.write('auth/cloud/role/web', { type: 'iam' });
    expect(await c.read('auth/cloud/role/web')).toEqual({ a: 1 });
    expect(seen.map((r) => r.headers['x-vault-index'])).toEqual([undefined, 'state-1', 'state-1']);
    await c.close();
  });
});

test('a 403 to a token names where the token came from and the address', async () => {
  const c = client({ tokenSource: 'VAULT_TOKEN', retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });
  script = [json(403, { errors: ['permission denied'] })];
  await expect(c.read('sys/auth')).rejects.toThrow(
    `GET ${url}/v1/sys/auth: HTTP 403: permission denied (the token from VAULT_TOKEN was refused by ${url}: it is not a valid token there, has expired, or its policies do not allow this request; check VAULT_TOKEN)`,
  );
  await c.close();
});

test('a server that does not answer JSON (a web server at the address) is named as such, its body never echoed, a 2xx not retried', async () => {
  const xml =
    (status: number): Step =>
    (_q, r) =>
      r.writeHead(status, { 'content-type': 'application/xml; charset=utf-8' }).end('<?xml version="1.0"?><Error><Code>AccessDenied</Code></Error>');
  const c = client();
  script = [xml(403)];
  const e = (await c.read('sys/auth').catch((x: unknown) => x)) as VaultClientError;
  expect(e.message).toBe(
    `GET ${url}/v1/sys/auth: HTTP 403: the server did not answer like Vault: its response is application/xml (61 bytes), not JSON. Is ${url} a Vault-compatible server? Check VAULT_ADDR or the stack's address`,
  );
  script = [xml(200), xml(200)];
  const ok = (await c.read('sys/auth').catch((x: unknown) => x)) as VaultClientError;
  expect(ok.message).toContain('HTTP 200: the server did not answer like Vault');
  expect(ok.message).not.toContain('AccessDenied');
  expect(script).toHaveLength(1); // one attempt
  await c.close();
});
