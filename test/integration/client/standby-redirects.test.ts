// Through a standby node that answers 307/308 with the active node's address (Vault's behaviour when
// it does not forward): the client detects the dialect from the standby's 429/473 health answer,
// follows the redirect with the same method, body and token, and a whole plan → apply → empty plan
// runs through it. One hop, as Vault's client; the rules on schemes are checked on followRedirect itself.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VaultClient } from '../../../src/client/vault-client';
import { writeLoopbackCert } from '../../support/loopback-cert';
import { followRedirect } from '../../../src/client/redirects';
import { ROOT_TOKEN, startTestEngine } from '../../support/engine';
import { startStandbyNode, type StandbyNode } from '../../support/standby-node';
import { iamRole, manifest, Session } from '../reconcile/helpers';

let engine: Awaited<ReturnType<typeof startTestEngine>>;
const nodes: StandbyNode[] = [];
const standby = async (o: Parameters<typeof startStandbyNode>[0]) => {
  const n = await startStandbyNode(o);
  nodes.push(n);
  return n;
};

beforeAll(async () => {
  engine = await startTestEngine();
});
afterAll(async () => {
  await Promise.all(nodes.map((n) => n.close()));
  await engine.close();
});

test('a standby (429 health, 307): dialect detected, writes and reads reach the active node with body and token', async () => {
  const node = await standby({ active: engine.url });
  const c = new VaultClient({ address: node.url, token: ROOT_TOKEN, retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });
  expect(await c.dialect()).toBe('keyward');
  await c.sys.enableAuth('via-standby', { type: 'cloud', description: 'through a standby' });
  await c.cloud('via-standby').writeRole('web', { type: 'iam', bound_service_accounts: ['web@p.iam.gserviceaccount.com'], token_ttl: 600 });
  expect(await c.cloud('via-standby').readRole('web')).toMatchObject({ type: 'iam', token_ttl: 600 });
  expect(node.seen.filter((s) => s.method === 'POST').map((s) => s.path)).toEqual(['/v1/sys/auth/via-standby', '/v1/auth/via-standby/role/web']);
  await c.close();
});

test('a performance standby (473 health, 308): plan, apply and an empty re-plan go through it', async () => {
  const node = await standby({ active: engine.url, healthStatus: 473, redirectStatus: 308 });
  const c = new VaultClient({ address: node.url, token: ROOT_TOKEN });
  const s = new Session(c);
  const m = manifest({ authBackends: [{ type: 'cloud', path: 'perf', roles: [iamRole('web'), iamRole('batch', { token_ttl: '1h' })] }] } as never);
  const first = await s.apply(m);
  expect(first).toBeDefined();
  const again = await s.plan(m);
  expect(again.summary).toMatchObject({ create: 0, update: 0, replace: 0, delete: 0 });
  expect(node.seen.some((x) => x.path.startsWith('/v1/auth/perf/role/'))).toBe(true);
  await c.close();
});

test("one hop is followed, as Vault's client; a second is refused with an error naming its target", async () => {
  const first = await standby({ active: engine.url });
  const c = new VaultClient({ address: first.url, token: ROOT_TOKEN, dialect: 'keyward', retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });
  await expect(c.sys.listAuthMounts()).resolves.toBeInstanceOf(Map);
  const second = await standby({ active: first.url });
  const c2 = new VaultClient({ address: second.url, token: ROOT_TOKEN, dialect: 'keyward', retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });
  const e = (await c2.sys.listAuthMounts().catch((x: unknown) => x)) as Error;
  expect(e.message).toBe(`GET ${second.url}/v1/sys/auth: HTTP 307: redirected again, to ${engine.url}/v1/sys/auth: the client follows one redirect, as Vault's does`);
  await c.close();
  await c2.close();
});

test('schemes: never https → http; the token only to a target of the configured scheme', () => {
  const https = new URL('https://standby.example:8200');
  const hop = { origin: 'https://standby.example:8200', path: '/v1/sys/auth', sameScheme: true };
  expect(followRedirect(https, hop, 'http://active.example:8200/v1/sys/auth', 0)).toEqual({
    refused: 'redirect to http://active.example:8200/v1/sys/auth refused: it would downgrade https to http',
  });
  expect(followRedirect(https, hop, 'https://active.example:8200/v1/sys/auth?list=true', 0)).toEqual({
    origin: 'https://active.example:8200',
    path: '/v1/sys/auth?list=true',
    sameScheme: true,
  });
  const http = new URL('http://standby.example:8200');
  expect(followRedirect(http, { ...hop, origin: 'http://standby.example:8200' }, 'https://active.example:8200/v1/sys/auth', 0)).toMatchObject({ sameScheme: false });
  expect(followRedirect(http, { ...hop, origin: 'http://standby.example:8200' }, '/v1/other', 0)).toEqual({
    origin: 'http://standby.example:8200',
    path: '/v1/other',
    sameScheme: true,
  });
  expect(followRedirect(http, hop, undefined, 0)).toEqual({ refused: 'redirect without a Location header' });
  expect(followRedirect(http, hop, 'https://a.example/x', 1)).toEqual({ refused: "redirected again, to https://a.example/x: the client follows one redirect, as Vault's does" });
});

test('no token crosses to a target of another scheme: an http standby sending to an https node', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-redirect-tls-'));
  writeLoopbackCert(dir);
  const heard: Array<string | undefined> = [];
  const tls = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (req, res) => {
    heard.push(req.headers['x-vault-token'] as string | undefined);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"ok":true}}');
  });
  await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
  try {
    const target = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
    const node = await standby({ active: target });
    const c = new VaultClient({ address: node.url, token: ROOT_TOKEN, dialect: 'keyward', caFile: join(dir, 'cert.pem') });
    expect(await c.read('secret/x')).toEqual({ ok: true });
    expect(heard).toEqual([undefined]);
    expect(node.seen).toEqual([{ method: 'GET', path: '/v1/secret/x', token: true }]);
    await c.close();
  } finally {
    tls.closeAllConnections();
    await new Promise((r) => tls.close(r));
    rmSync(dir, { recursive: true, force: true });
  }
});
