// Namespaces: selection by header or path prefix, and isolation of auth mounts between them.

import { startTestEngine, api } from '../../support/engine';
import { staticAuthMethod } from '../../support/static-auth';
import { authMethodFactories } from '../../../src/engine/auth/methods';
import type { Engine } from '../../../src/engine/engine';

let engine: Engine;
beforeAll(async () => {
  engine = await startTestEngine({ authMethods: [...authMethodFactories, staticAuthMethod] });
  expect((await api(engine, 'POST', 'sys/namespaces/team')).status).toBe(200);
  expect((await api(engine, 'POST', 'sys/namespaces/dev', { namespace: 'team' })).status).toBe(200);
});
afterAll(() => engine.close());

const mounts = async (namespace?: string) => Object.keys((await api(engine, 'GET', 'sys/auth', { namespace })).body.data).sort();

it('lists and reads namespaces', async () => {
  const l = await api(engine, 'LIST', 'sys/namespaces');
  expect(l.body.data.keys).toEqual(['team/']);
  const nested = await api(engine, 'GET', 'sys/namespaces?list=true', { namespace: 'team' });
  expect(nested.body.data.keys).toEqual(['dev/']);
  expect((await api(engine, 'GET', 'sys/namespaces/team')).body.data.path).toBe('team/');
});

it('a mount in a child namespace is invisible from the root, and the reverse', async () => {
  expect((await api(engine, 'POST', 'sys/auth/child-only', { namespace: 'team', body: { type: 'static' } })).status).toBe(204);
  expect((await api(engine, 'POST', 'sys/auth/root-only', { body: { type: 'static' } })).status).toBe(204);
  expect(await mounts()).toEqual(['root-only/', 'token/']);
  expect(await mounts('team')).toEqual(['child-only/', 'token/']);
  expect((await api(engine, 'POST', 'auth/child-only/role/r', { namespace: 'team', body: { token_ttl: 1 } })).status).toBe(204);
  expect((await api(engine, 'GET', 'auth/child-only/role/r')).status).toBe(404);
  expect((await api(engine, 'GET', 'auth/root-only/role/r', { namespace: 'team' })).status).toBe(404);
  // A path prefix selects the namespace too.
  expect((await api(engine, 'GET', 'team/auth/child-only/role/r')).status).toBe(200);
  expect(Object.keys((await api(engine, 'GET', 'team/sys/auth')).body.data).sort()).toEqual(['child-only/', 'token/']);
  // A child namespace's token mount is of type ns_token (Vault's mountTypeNSToken; OpenBao 2.7.2 answers the same,
  // test/real/engine-parity.test.ts); the root namespace's is token.
  const tokenType = async (namespace?: string) => (await api(engine, 'GET', 'sys/auth', { namespace })).body.data['token/'].type;
  expect({ root: await tokenType(), team: await tokenType('team') }).toEqual({ root: 'token', team: 'ns_token' });
});

it('the same mount path can exist in two namespaces independently', async () => {
  await api(engine, 'POST', 'sys/auth/cloud', { body: { type: 'static' } });
  await api(engine, 'POST', 'sys/auth/cloud', { namespace: 'team', body: { type: 'static' } });
  await api(engine, 'POST', 'auth/cloud/role/a', { body: { token_ttl: 10 } });
  await api(engine, 'POST', 'auth/cloud/role/a', { namespace: 'team', body: { token_ttl: 20 } });
  expect((await api(engine, 'GET', 'auth/cloud/role/a')).body.data.token_ttl).toBe(10);
  expect((await api(engine, 'GET', 'auth/cloud/role/a', { namespace: 'team' })).body.data.token_ttl).toBe(20);
});

it('a token of a child namespace cannot reach its parent', async () => {
  await api(engine, 'PUT', 'sys/policy/admin', { namespace: 'team', body: { policy: 'path "*" { capabilities = ["read", "list", "sudo", "create", "update"] }' } });
  const t = (await api(engine, 'POST', 'auth/token/create', { namespace: 'team', body: { policies: ['admin'] } })).body.auth.client_token;
  expect((await api(engine, 'GET', 'sys/auth', { token: t, namespace: 'team' })).status).toBe(200);
  expect((await api(engine, 'GET', 'sys/auth', { token: t })).status).toBe(403);
  expect((await api(engine, 'GET', 'sys/auth', { token: t, namespace: 'team/dev' })).status).toBe(200);
});

it('mount paths are free-form and disabling removes the data', async () => {
  expect((await api(engine, 'POST', 'sys/auth/team/a', { body: { type: 'static', description: 'nested path' } })).status).toBe(204);
  expect((await api(engine, 'POST', 'sys/auth/gcp-prod', { body: { type: 'static' } })).status).toBe(204);
  const conflict = await api(engine, 'POST', 'sys/auth/team', { body: { type: 'static' } });
  expect(conflict.status).toBe(400);
  expect(conflict.body.errors[0]).toMatch(/already in use at team\/a\//);
  await api(engine, 'POST', 'auth/team/a/role/x', { body: { token_ttl: 1 } });
  expect((await api(engine, 'GET', 'auth/team/a/role/x')).status).toBe(200);
  expect((await api(engine, 'DELETE', 'sys/auth/team/a')).status).toBe(204);
  expect((await api(engine, 'GET', 'auth/team/a/role/x')).status).toBe(404);
  await api(engine, 'POST', 'sys/auth/team/a', { body: { type: 'static' } });
  expect((await api(engine, 'GET', 'auth/team/a/role/x')).status).toBe(404);
  const unknown = await api(engine, 'POST', 'sys/auth/x', { body: { type: 'nope' } });
  expect(unknown.status).toBe(400);
  expect(unknown.body.errors[0]).toMatch(/unknown auth method type "nope"/);
});

it('deleting a namespace with children is refused; an empty one is removed with its mounts', async () => {
  expect((await api(engine, 'DELETE', 'sys/namespaces/team')).status).toBe(400);
  await api(engine, 'POST', 'sys/auth/m', { namespace: 'team/dev', body: { type: 'static' } });
  expect((await api(engine, 'DELETE', 'sys/namespaces/dev', { namespace: 'team' })).status).toBe(204);
  expect((await api(engine, 'GET', 'sys/auth', { namespace: 'team/dev' })).status).toBe(404);
});
