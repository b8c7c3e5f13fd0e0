// One canonical request path for routing, the namespace split and the ACL (issue 32): a path that
// is denied stays denied when spelt with percent-escapes, and "//", "." and ".." forms are
// redirected to their clean form (Go's ServeMux answers 301) before any handler runs. Requests
// go out through node:http, which sends the path exactly as written (WHATWG URL parsing in fetch
// and undici would clean the dot segments before they leave).

import { request } from 'node:http';
import { startTestEngine, api, ROOT_TOKEN } from '../../support/engine';
import { staticAuthMethod } from '../../support/static-auth';
import { authMethodFactories } from '../../../src/engine/auth/methods';
import type { Engine } from '../../../src/engine/engine';

let engine: Engine;
let token: string;

/** Everything allowed, with sudo, except each family's protected paths. */
const POLICY = `
path "*" { capabilities = ["create", "read", "update", "delete", "list", "sudo"] }
path "sys/auth/prod" { capabilities = ["deny"] }
path "sys/auth/prod/*" { capabilities = ["deny"] }
path "auth/prod/*" { capabilities = ["deny"] }
path "sys/policies/acl/locked" { capabilities = ["deny"] }
path "sys/policy/locked" { capabilities = ["deny"] }
path "sys/namespaces/prodns" { capabilities = ["deny"] }
path "prodns/*" { capabilities = ["deny"] }
path "auth/token/create" { capabilities = ["deny"] }
path "identity/oidc/key/default/rotate" { capabilities = ["deny"] }
path "sys/remount" { capabilities = ["deny"] }
`;

function send(method: string, rawPath: string, body?: unknown, namespace?: string): Promise<{ status: number; location?: string; text: string }> {
  const { hostname, port } = new URL(engine.url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: hostname, port: Number(port), method, path: rawPath, headers: { 'x-vault-token': token, ...(namespace ? { 'x-vault-namespace': namespace } : {}) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** What must still hold after every attempt: nothing protected changed. */
async function protectedStateIntact(): Promise<void> {
  const auth = await api(engine, 'GET', 'sys/auth');
  expect(Object.keys(auth.body.data)).toContain('prod/');
  expect(auth.body.data['prod/'].config.default_lease_ttl).toBe(3600);
  expect((await api(engine, 'GET', 'auth/prod/role/web')).body.data.token_ttl).toBe(60);
  expect((await api(engine, 'GET', 'sys/policies/acl/locked')).body.data.policy).toBe('path "x" { capabilities = ["read"] }');
  expect((await api(engine, 'GET', 'sys/policy/locked')).status).toBe(200);
  expect((await api(engine, 'GET', 'sys/namespaces/prodns')).status).toBe(200);
  expect(Object.keys((await api(engine, 'GET', 'sys/auth', { namespace: 'prodns' })).body.data)).toContain('inner/');
  expect(Object.keys((await api(engine, 'GET', 'sys/auth')).body.data)).not.toContain('moved/');
}

beforeAll(async () => {
  engine = await startTestEngine({ authMethods: [...authMethodFactories, staticAuthMethod] });
  expect((await api(engine, 'POST', 'sys/auth/prod', { body: { type: 'static', config: { default_lease_ttl: '1h' } } })).status).toBe(204);
  expect((await api(engine, 'POST', 'auth/prod/role/web', { body: { token_ttl: 60 } })).status).toBe(204);
  expect((await api(engine, 'PUT', 'sys/policies/acl/locked', { body: { policy: 'path "x" { capabilities = ["read"] }' } })).status).toBe(204);
  expect((await api(engine, 'PUT', 'sys/policies/acl/attacker', { body: { policy: POLICY } })).status).toBe(204);
  expect((await api(engine, 'POST', 'sys/namespaces/prodns')).status).toBe(200);
  expect((await api(engine, 'POST', 'sys/auth/inner', { namespace: 'prodns', body: { type: 'static' } })).status).toBe(204);
  token = (await api(engine, 'POST', 'auth/token/create', { body: { policies: ['attacker'] } })).body.auth.client_token;
  await protectedStateIntact();
});
afterAll(() => engine.close());

/** Each family's denied request, written plainly. */
const FAMILIES: { family: string; method: string; path: string; body?: unknown }[] = [
  { family: 'sys/auth disable', method: 'DELETE', path: 'sys/auth/prod' },
  { family: 'sys/auth tune', method: 'POST', path: 'sys/auth/prod/tune', body: { default_lease_ttl: '5s' } },
  { family: 'auth mount routes', method: 'DELETE', path: 'auth/prod/role/web' },
  { family: 'sys/policies/acl', method: 'DELETE', path: 'sys/policies/acl/locked' },
  { family: 'sys/policy', method: 'DELETE', path: 'sys/policy/locked' },
  { family: 'sys/namespaces', method: 'DELETE', path: 'sys/namespaces/prodns' },
  { family: 'namespace path prefix', method: 'DELETE', path: 'prodns/sys/auth/inner' },
  { family: 'auth/token', method: 'POST', path: 'auth/token/create', body: { policies: ['root'] } },
  { family: 'identity', method: 'POST', path: 'identity/oidc/key/default/rotate' },
  { family: 'sys/remount', method: 'POST', path: 'sys/remount', body: { from: 'auth/prod', to: 'auth/moved' } },
];

/** Spellings of `path` that decode to it: every letter escaped once, and the slashes too. */
function encoded(path: string): string[] {
  const hex = (c: string) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  const lastSegment = path.lastIndexOf('/') + 1;
  return [
    path.slice(0, lastSegment) + hex(path[lastSegment]) + path.slice(lastSegment + 1), // sys/auth/%70rod
    path.replace(/[a-z]/g, (c) => hex(c).toUpperCase()),
    path.replace(/\//g, '%2F'),
  ];
}

/** Unclean spellings: "//", "." and ".." segments, literal and escaped. */
function unclean(path: string): string[] {
  const i = path.lastIndexOf('/');
  return [
    `${path.slice(0, i)}//${path.slice(i + 1)}`, // sys/auth//prod
    `/${path}`,
    `${path.slice(0, i)}/./${path.slice(i + 1)}`,
    `${path.slice(0, i)}/x/../${path.slice(i + 1)}`,
    `${path.slice(0, i)}/%2e/${path.slice(i + 1)}`,
    `${path.slice(0, i)}/x/%2E%2E/${path.slice(i + 1)}`,
  ];
}

describe.each(FAMILIES)('$family: $method $path', ({ method, path, body }) => {
  it('is denied when written plainly', async () => {
    expect((await send(method, `/v1/${path}`, body)).status).toBe(403);
    await protectedStateIntact();
  });

  it.each(encoded(path))('is denied when percent-encoded (%s)', async (variant) => {
    expect((await send(method, `/v1/${variant}`, body)).status).toBe(403);
    await protectedStateIntact();
  });

  it.each(unclean(path))("is redirected to the clean path, as Go's mux does, when written %s", async (variant) => {
    const r = await send(method, `/v1/${variant}`, body);
    expect(r.status).toBe(301);
    expect(r.location).toBe(`/v1/${path}`);
    await protectedStateIntact();
  });
});

it('a doubly encoded name is decoded once: %2570rod names the mount "%70rod", not "prod"', async () => {
  const r = await send('DELETE', '/v1/sys/auth/%2570rod');
  expect(r.status).toBe(204); // disabling a mount that does not exist, as Vault answers
  await protectedStateIntact();
});

it('the redirect keeps the query and the root token still works on clean and escaped paths', async () => {
  const r = await send('GET', '/v1/sys//policies/acl?list=true');
  expect(r.status).toBe(301);
  expect(r.location).toBe('/v1/sys/policies/acl?list=true');
  token = ROOT_TOKEN;
  expect((await send('GET', '/v1/auth/prod/role/%77eb')).status).toBe(200);
  expect((await send('GET', '/v1/sys/auth/../auth')).status).toBe(301);
  expect((await send('GET', '/v1/sys/auth/%zz')).status).toBe(400);
});
