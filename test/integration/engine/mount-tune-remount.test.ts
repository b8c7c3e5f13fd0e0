// Auth mounts on the engine: `local` at enable time, tune settings (lease TTLs, token type,
// listing visibility) that logins through the mount obey, and sys/remount moving a mount with its
// roles and accessor, revoking the tokens issued through it as Vault does (vault/auth.go).

import { startTestEngine, api } from '../../support/engine';
import { staticAuthMethod } from '../../support/static-auth';
import { authMethodFactories } from '../../../src/engine/auth/methods';
import type { Engine } from '../../../src/engine/engine';

let engine: Engine;
beforeAll(async () => {
  engine = await startTestEngine({ authMethods: [...authMethodFactories, staticAuthMethod] });
});
afterAll(() => engine.close());

test('enable with local and config: sys/auth lists both; tune read reports the effective TTLs', async () => {
  expect((await api(engine, 'POST', 'sys/auth/loc', { body: { type: 'static', local: true, config: { default_lease_ttl: '1h', token_type: 'default-batch' } } })).status).toBe(204);
  const list = await api(engine, 'GET', 'sys/auth');
  expect(list.body.data['loc/']).toMatchObject({ local: true, config: { default_lease_ttl: 3600, max_lease_ttl: 0, token_type: 'default-batch' } });
  expect(list.body.data['loc/'].config).not.toHaveProperty('listing_visibility');
  // An enabled mount's options read {} (Vault stores the request's empty map; OpenBao 2.7.2 answers the same,
  // test/real/engine-parity.test.ts); only the built-in token mount has none (null).
  expect({ loc: list.body.data['loc/'].options, token: list.body.data['token/'].options }).toEqual({ loc: {}, token: null });
  expect((await api(engine, 'GET', 'sys/auth/loc')).body.data.options).toEqual({});
  const tune = await api(engine, 'GET', 'sys/auth/loc/tune');
  expect(tune.body.data).toEqual({ description: '', default_lease_ttl: 3600, max_lease_ttl: 2764800, force_no_cache: false, token_type: 'default-batch' });
  // Vault and OpenBao also copy the tune read's fields beside the envelope, as for sys/auth itself (measured on
  // OpenBao 2.7.2 by test/real/engine-parity.test.ts); clients reading the legacy top-level shape find them there.
  expect(tune.body).toMatchObject({ description: '', default_lease_ttl: 3600, max_lease_ttl: 2764800, force_no_cache: false, token_type: 'default-batch' });
});

test('tune: only the fields sent change; bad values are 400s naming the field', async () => {
  await api(engine, 'POST', 'sys/auth/tuned', { body: { type: 'static', description: 'd' } });
  expect((await api(engine, 'POST', 'sys/auth/tuned/tune', { body: { max_lease_ttl: '2h', listing_visibility: 'unauth' } })).status).toBe(204);
  expect((await api(engine, 'POST', 'sys/auth/tuned/tune', { body: { default_lease_ttl: 600 } })).status).toBe(204);
  const m = (await api(engine, 'GET', 'sys/auth')).body.data['tuned/'];
  expect(m).toMatchObject({ description: 'd', local: false, config: { default_lease_ttl: 600, max_lease_ttl: 7200, token_type: 'default-service', listing_visibility: 'unauth' } });
  for (const [body, word] of [
    [{ token_type: 'forever' }, 'token_type'],
    [{ listing_visibility: 'public' }, 'listing_visibility'],
    [{ default_lease_ttl: '3h' }, 'default_lease_ttl'],
    [{ max_lease_ttl: 'soon' }, 'max_lease_ttl'],
  ] as const) {
    const r = await api(engine, 'POST', 'sys/auth/tuned/tune', { body });
    expect(r.status).toBe(400);
    expect(r.body.errors.join(' ')).toContain(word);
  }
  expect((await api(engine, 'POST', 'sys/auth/tuned/tune', { body: { default_lease_ttl: 'system', listing_visibility: '' } })).status).toBe(204);
  expect((await api(engine, 'GET', 'sys/auth')).body.data['tuned/'].config).toEqual({
    default_lease_ttl: 0,
    max_lease_ttl: 7200,
    force_no_cache: false,
    token_type: 'default-service',
  });
});

test('logins obey the mount: its default TTL for roles without one, its max as a cap, its token type', async () => {
  await api(engine, 'POST', 'sys/auth/lim', { body: { type: 'static', config: { default_lease_ttl: 300, max_lease_ttl: 900 } } });
  await api(engine, 'POST', 'auth/lim/role/plain', { body: {} });
  await api(engine, 'POST', 'auth/lim/role/long', { body: { token_ttl: 3600 } });
  expect((await api(engine, 'POST', 'auth/lim/login', { body: { role: 'plain' } })).body.auth.lease_duration).toBe(300);
  expect((await api(engine, 'POST', 'auth/lim/login', { body: { role: 'long' } })).body.auth.lease_duration).toBe(900);
  await api(engine, 'POST', 'sys/auth/lim/tune', { body: { token_type: 'batch' } });
  const batch = await api(engine, 'POST', 'auth/lim/login', { body: { role: 'plain' } });
  expect(batch.body.auth.token_type).toBe('batch');
});

test('remount: roles, config and accessor move; a token issued before is revoked, as Vault revokes it', async () => {
  await api(engine, 'POST', 'sys/auth/old', { body: { type: 'static', config: { max_lease_ttl: 7200 } } });
  await api(engine, 'POST', 'auth/old/role/web', { body: { token_ttl: 600, token_policies: ['default'] } });
  const before = (await api(engine, 'GET', 'sys/auth')).body.data['old/'];
  const login = await api(engine, 'POST', 'auth/old/login', { body: { role: 'web' } });
  expect(login.body).toHaveProperty('auth');
  const token = login.body.auth.client_token as string;

  const r = await api(engine, 'POST', 'sys/remount', { body: { from: 'auth/old', to: 'auth/team/new' } });
  expect(r.status).toBe(200);
  const status = await api(engine, 'GET', `sys/remount/status/${r.body.data.migration_id}`);
  expect(status.body.data.migration_info).toEqual({ source_mount: 'auth/old/', target_mount: 'auth/team/new/', status: 'success' });

  const after = (await api(engine, 'GET', 'sys/auth')).body.data;
  expect(after['old/']).toBeUndefined();
  expect(after['team/new/']).toMatchObject({ accessor: before.accessor, uuid: before.uuid, config: { max_lease_ttl: 7200 } });
  expect((await api(engine, 'GET', 'auth/team/new/role/web')).body.data).toMatchObject({ token_ttl: 600 });
  expect((await api(engine, 'GET', 'auth/old/role/web')).status).not.toBe(200);
  expect((await api(engine, 'GET', 'auth/token/lookup-self', { token })).status).toBe(403);
  expect((await api(engine, 'POST', 'auth/token/renew-self', { token, body: {} })).status).toBe(403);
  const again = await api(engine, 'POST', 'auth/team/new/login', { body: { role: 'web' } });
  expect(again.status).toBe(200);
  expect((await api(engine, 'GET', 'auth/token/lookup-self', { token: again.body.auth.client_token })).status).toBe(200);
});

test('remount refusals: unknown source, taken target, non-auth paths, unknown migration id', async () => {
  await api(engine, 'POST', 'sys/auth/a1', { body: { type: 'static' } });
  await api(engine, 'POST', 'sys/auth/a2', { body: { type: 'static' } });
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ from: 'auth/missing', to: 'auth/x' }, /no auth mount at auth\/missing/],
    [{ from: 'auth/a1', to: 'auth/a2' }, /already in use at a2\//],
    [{ from: 'secret', to: 'auth/x' }, /from: "secret" is not an auth mount path/],
    [{ from: 'auth/a1' }, /"to" field is required/],
  ];
  for (const [body, msg] of cases) {
    const r = await api(engine, 'POST', 'sys/remount', { body });
    expect(r.status).toBe(400);
    expect(r.body.errors.join(' ')).toMatch(msg);
  }
});

test('an unknown migration id is a 404 with no message, as on Vault and OpenBao (handleRemountStatusCheck returns nil)', async () => {
  const r = await api(engine, 'GET', 'sys/remount/status/nope');
  expect({ status: r.status, body: r.body }).toEqual({ status: 404, body: { errors: [] } });
});
