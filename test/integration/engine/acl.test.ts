// ACL enforcement through the request pipeline: grants, sudo-protected paths, deny precedence.

import { startTestEngine, api } from '../../support/engine';
import { staticAuthMethod } from '../../support/static-auth';
import { authMethodFactories } from '../../../src/engine/auth/methods';
import type { Engine } from '../../../src/engine/engine';

let engine: Engine;
beforeAll(async () => {
  engine = await startTestEngine({ authMethods: [...authMethodFactories, staticAuthMethod] });
  await api(engine, 'POST', 'sys/auth/cloud', { body: { type: 'static' } });
  for (const role of ['web', 'secret']) await api(engine, 'POST', `auth/cloud/role/${role}`, { body: { token_ttl: 60 } });
  const policies: Record<string, string> = {
    'role-reader': 'path "auth/cloud/role/*" { capabilities = ["read"] }',
    'no-secret': 'path "auth/cloud/role/secret" { capabilities = ["deny"] }',
    'deny-all-roles': 'path "auth/cloud/role/*" { capabilities = ["deny"] }',
    'token-maker': 'path "auth/token/create" { capabilities = ["create", "update"] }',
    'token-maker-sudo': 'path "auth/token/create" { capabilities = ["create", "update", "sudo"] }',
    'plus-reader': '{"path": {"auth/+/role/web": {"capabilities": ["read", "update"]}}}',
  };
  for (const [name, policy] of Object.entries(policies)) {
    expect((await api(engine, 'PUT', `sys/policies/acl/${name}`, { body: { policy } })).status).toBe(204);
  }
});
afterAll(() => engine.close());

async function tokenWith(...policies: string[]): Promise<string> {
  const r = await api(engine, 'POST', 'auth/token/create', { body: { policies, ttl: '1h' } });
  return r.body.auth.client_token;
}

it('a grant of read on auth/cloud/role/* can read and cannot write', async () => {
  const t = await tokenWith('role-reader');
  expect((await api(engine, 'GET', 'auth/cloud/role/web', { token: t })).status).toBe(200);
  const w = await api(engine, 'POST', 'auth/cloud/role/web', { token: t, body: { token_ttl: 5 } });
  expect(w.status).toBe(403);
  expect(w.body).toEqual({ errors: ['permission denied'] });
  expect((await api(engine, 'POST', 'auth/cloud/role/new', { token: t, body: {} })).status).toBe(403);
  expect((await api(engine, 'DELETE', 'auth/cloud/role/web', { token: t })).status).toBe(403);
  expect((await api(engine, 'GET', 'sys/auth', { token: t })).status).toBe(403);
});

it('a sudo-protected path is refused without sudo', async () => {
  const without = await tokenWith('token-maker');
  const r = await api(engine, 'POST', 'auth/token/create', { token: without, body: { ttl: '1m' } });
  expect(r.status).toBe(403);
  const withSudo = await tokenWith('token-maker-sudo');
  expect((await api(engine, 'POST', 'auth/token/create', { token: withSudo, body: { ttl: '1m' } })).status).toBe(200);
});

it('deny on a more specific path wins over a glob grant', async () => {
  const t = await tokenWith('role-reader', 'no-secret');
  expect((await api(engine, 'GET', 'auth/cloud/role/web', { token: t })).status).toBe(200);
  expect((await api(engine, 'GET', 'auth/cloud/role/secret', { token: t })).status).toBe(403);
});

it('deny on the same path in another policy wins over the grant', async () => {
  const t = await tokenWith('role-reader', 'deny-all-roles');
  expect((await api(engine, 'GET', 'auth/cloud/role/web', { token: t })).status).toBe(403);
});

it('+ matches one segment; JSON policies work', async () => {
  const t = await tokenWith('plus-reader');
  expect((await api(engine, 'GET', 'auth/cloud/role/web', { token: t })).status).toBe(200);
  expect((await api(engine, 'GET', 'auth/cloud/role/secret', { token: t })).status).toBe(403);
});

it('root can do everything; the default policy allows lookup-self', async () => {
  const t = await tokenWith('role-reader');
  expect((await api(engine, 'GET', 'auth/token/lookup-self', { token: t })).status).toBe(200);
  const caps = await api(engine, 'POST', 'sys/capabilities-self', { token: t, body: { paths: ['auth/cloud/role/web', 'sys/auth'] } });
  expect(caps.body.data['auth/cloud/role/web']).toEqual(['read']);
  expect(caps.body.data['sys/auth']).toEqual(['deny']);
  const root = await api(engine, 'POST', 'sys/capabilities-self', { body: { path: 'anything' } });
  expect(root.body.data.capabilities).toEqual(['root']);
});

it('policies: HCL parse errors are 400s naming the position; built-ins are protected', async () => {
  const bad = await api(engine, 'PUT', 'sys/policy/bad', { body: { policy: 'path "x" {\n  capabilities = ["read", "fly"]\n}' } });
  expect(bad.status).toBe(400);
  expect(bad.body.errors[0]).toMatch(/line 2/);
  expect(bad.body.errors[0]).toMatch(/fly/);
  expect((await api(engine, 'PUT', 'sys/policy/root', { body: { policy: 'path "x" { capabilities = ["read"] }' } })).status).toBe(400);
  expect((await api(engine, 'DELETE', 'sys/policy/default')).status).toBe(400);
  const d = await api(engine, 'GET', 'sys/policy/default');
  expect(d.body.data.rules).toMatch(/auth\/token\/lookup-self/);
  expect((await api(engine, 'DELETE', 'sys/policies/acl/plus-reader')).status).toBe(204);
  expect((await api(engine, 'GET', 'sys/policies/acl/plus-reader')).status).toBe(404);
});
