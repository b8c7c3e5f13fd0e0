// keyward_cloud_auth_backend through the plugin contract against the real engine on a loopback
// port: refresh sees drift, plan compares canonically, apply writes only what changed.

import type { Engine } from '../../../src/engine/engine';
import type { ObjectValue } from '../../../src/terraform/plugin/contract';
import { api, ROOT_TOKEN, startTestEngine } from '../../support/engine';
import { serviceAccountKey } from '../reconcile/helpers';
import { providerSession } from '../../support/provider-session';

let engine: Engine;
beforeAll(async () => {
  engine = await startTestEngine();
});
afterAll(async () => {
  await engine.close();
});

const SALT = 'tf-test-salt-0123456789';

/** A driver whose client counts the requests it sends, by method. */
const driver = (env: Record<string, string> = {}) =>
  providerSession({ env: { VAULT_ADDR: engine.url, VAULT_TOKEN: ROOT_TOKEN, ...env }, typeName: 'keyward_cloud_auth_backend', config: { fingerprint_salt: SALT } });

const web = { type: 'iam', bound_service_accounts: ['app@proj-a.iam.gserviceaccount.com'], token_ttl: '1h', token_policies: ['read', 'write'], allow_vm_inference: true };
const batch = { type: 'vm', bound_zones: ['europe-west1-b'], bound_labels: { env: 'prod' }, token_bound_cidrs: ['10.0.0.1/32'] };

test('create, then refresh and plan are empty; equivalent spellings plan nothing', async () => {
  const { d, writes, reset, close } = await driver();
  const config = d.config({ path: 'tf-basic', description: 'managed', roles: { web, batch } });
  const created = await d.deploy(null, config);
  expect(created.plan.changes).toEqual(['']); // the whole object: a create
  const state = created.state!;
  expect(state.accessor).toMatch(/^auth_cloud_/);
  expect((state.roles as ObjectValue).web).toMatchObject({ role_id: expect.any(String), token_ttl: '1h' });

  reset();
  const again = await d.deploy(state, config);
  expect(again.plan.changes).toEqual([]);
  expect(writes()).toEqual([]);

  // "3600" for "1h", the CIDR without /32, sets in another order: the same meaning, no plan.
  const respelled = d.config({
    path: 'tf-basic',
    description: 'managed',
    roles: { web: { ...web, token_ttl: '3600', token_policies: ['write', 'read'] }, batch: { ...batch, token_bound_cidrs: ['10.0.0.1'] } },
  });
  const p = await d.plan((await d.read(state))!, respelled);
  expect(p.changes).toEqual([]);
  expect(p.diagnostics).toEqual([]);
  await close();
});

test('out-of-band changes appear on refresh, plan as an update naming the fields, and apply fixes them', async () => {
  const { d, writes, reset, close } = await driver();
  const config = d.config({ path: 'tf-drift', exclusive_roles: true, roles: { web, batch } });
  const { state } = await d.deploy(null, config);
  await api(engine, 'POST', 'auth/tf-drift/role/web', { body: { token_ttl: 60, token_max_ttl: 7200, token_policies: ['read', 'write', 'admin'] } });
  await api(engine, 'POST', 'auth/tf-drift/role/backdoor', { body: { type: 'iam', bound_service_accounts: ['evil@x.iam.gserviceaccount.com'] } });

  const refreshed = (await d.read(state!))!;
  expect(Object.keys(refreshed.roles as ObjectValue).sort()).toEqual(['backdoor', 'batch', 'web']);
  const plan = await d.plan(refreshed, config);
  // token_max_ttl was never declared: it plans back to the server default.
  expect(plan.changes.sort()).toEqual(['roles["backdoor"]', 'roles["web"].token_max_ttl', 'roles["web"].token_policies', 'roles["web"].token_ttl']);
  expect(plan.requiresReplace).toEqual([]);

  reset();
  const fixed = await d.apply(refreshed, plan.planned, config);
  expect(writes().sort()).toEqual(['DELETE auth/tf-drift/role/backdoor', 'POST auth/tf-drift/role/web']);
  expect((await api(engine, 'GET', 'auth/tf-drift/role/web')).body.data).toMatchObject({ token_ttl: 3600, token_max_ttl: 0, token_policies: ['read', 'write'] });
  expect((await api(engine, 'GET', 'auth/tf-drift/role/backdoor')).status).toBe(404);
  expect((await d.plan((await d.read(fixed.state!))!, config)).changes).toEqual([]);
  await close();
});

test('one-field change writes one role; a removed role is deleted; a type change replaces that role only', async () => {
  const { d, writes, reset, close } = await driver();
  const roles: Record<string, unknown> = { web, batch, other: { ...web, token_ttl: '2h' } };
  let { state } = await d.deploy(null, d.config({ path: 'tf-edit', roles }));

  reset();
  let r = await d.deploy(state, d.config({ path: 'tf-edit', roles: { ...roles, other: { ...web, token_ttl: '3h' } } }));
  expect(r.plan.changes).toEqual(['roles["other"].token_ttl']);
  expect(writes()).toEqual(['POST auth/tf-edit/role/other']);
  state = r.state;

  reset();
  r = await d.deploy(state, d.config({ path: 'tf-edit', roles: { web, batch } }));
  expect(r.plan.changes).toEqual(['roles["other"]']);
  expect(writes()).toEqual(['DELETE auth/tf-edit/role/other']);
  state = r.state;

  const oldId = ((state!.roles as ObjectValue).web as ObjectValue).role_id;
  reset();
  r = await d.deploy(state, d.config({ path: 'tf-edit', roles: { web: { type: 'vm', bound_zones: ['z1'] }, batch } }));
  expect(r.plan.requiresReplace).toEqual([]);
  expect(writes()).toEqual(['DELETE auth/tf-edit/role/web', 'POST auth/tf-edit/role/web']);
  const newWeb = (r.state!.roles as ObjectValue).web as ObjectValue;
  expect(newWeb.type).toBe('vm');
  expect(newWeb.role_id).not.toBe(oldId);
  expect((await api(engine, 'GET', 'auth/tf-edit/role/web')).body.data.type).toBe('vm');
  await close();
});

test('destroy keeps a mount holding an undeclared role (its config as it is); without one the mount goes; retain_on_destroy deletes nothing', async () => {
  const { d, close } = await driver();
  const { state } = await d.deploy(
    null,
    d.config({ path: 'tf-keep', config: { iam_alias: 'unique_id', custom_endpoint: { iam: 'https://iam.internal:8443', api: 'https://api.internal' } }, roles: { web } }),
  );
  await api(engine, 'POST', 'auth/tf-keep/role/handmade', { body: { type: 'iam', bound_service_accounts: ['h@x.iam.gserviceaccount.com'] } });
  const out = await d.apply((await d.read(state!))!, null, null);
  expect(out.state).toBeNull();
  expect(out.diagnostics).toEqual([expect.objectContaining({ severity: 'warning', summary: expect.stringContaining('auth/tf-keep kept') })]);
  expect((await api(engine, 'GET', 'auth/tf-keep/role/handmade')).status).toBe(200);
  // The kept mount's config stays as it is: the hand-made role's logins depend on it (issue 29, defect 4).
  const keptConfig = (await api(engine, 'GET', 'auth/tf-keep/config')).body.data;
  expect(keptConfig).toMatchObject({ iam_alias: 'unique_id', custom_endpoint: { iam: 'https://iam.internal:8443', api: 'https://api.internal' } });
  expect((await api(engine, 'GET', 'auth/tf-keep/role/web')).status).toBe(404);

  const gone = await d.deploy(null, d.config({ path: 'tf-gone', roles: { web } }));
  await d.apply(gone.state, null, null);
  expect((await api(engine, 'GET', 'sys/auth')).body.data['tf-gone/']).toBeUndefined();

  const kept = await d.deploy(null, d.config({ path: 'tf-retain', retain_on_destroy: true, roles: { web } }));
  // The destroy plan says what Terraform's "will be destroyed" does not: the mount stays.
  const destroyPlan = await d.plan(kept.state, null);
  expect(destroyPlan.diagnostics).toEqual([expect.objectContaining({ severity: 'warning', summary: 'auth/tf-retain stays on the server (retain_on_destroy)' })]);
  await d.apply(kept.state, null, null);
  expect((await api(engine, 'GET', 'auth/tf-retain/role/web')).status).toBe(200);
  await close();
});

test('no roles: plan, apply, refresh and import all hold the empty map, never null (roles is a map block)', async () => {
  const { d, close } = await driver();
  const config = d.config({ path: 'tf-noroles' });
  expect(config.roles).toEqual({});
  const created = await d.deploy(null, config);
  expect(created.plan.planned!.roles).toEqual({});
  expect(created.state!.roles).toEqual({});
  const refreshed = (await d.read(created.state!))!;
  expect(refreshed.roles).toEqual({});
  expect((await d.plan(refreshed, config)).changes).toEqual([]);
  const imported = (await d.read(await d.handler.import(d.ctx, 'tf-noroles')))!;
  expect(imported.roles).toEqual({});
  // State written while roles was a nested attribute holds null: it plans no change either.
  expect((await d.plan((await d.read({ ...refreshed, roles: null }))!, config)).changes).toEqual([]);
  await d.apply(refreshed, null, null);
  await close();
});

test('import by mount path brings config and roles; the same declaration then writes nothing', async () => {
  await api(engine, 'POST', 'sys/auth/tf-imp', { body: { type: 'cloud', description: 'by hand' } });
  await api(engine, 'POST', 'auth/tf-imp/config', { body: { iam_alias: 'unique_id' } });
  await api(engine, 'POST', 'auth/tf-imp/role/web', {
    body: { type: 'iam', bound_service_accounts: ['app@proj-a.iam.gserviceaccount.com'], token_ttl: '1h', token_policies: 'read,write' },
  });
  await api(engine, 'POST', 'auth/tf-imp/role/batch', { body: { type: 'vm', bound_zones: 'europe-west1-b', bound_labels: 'env:prod', token_bound_cidrs: '10.0.0.1' } });
  const { d, writes, close } = await driver();
  const imported = await d.handler.import(d.ctx, 'tf-imp');
  const state = (await d.read(imported))!;
  expect(Object.keys(state.roles as ObjectValue).sort()).toEqual(['batch', 'web']);
  const config = d.config({ path: 'tf-imp', description: 'by hand', config: { iam_alias: 'unique_id' }, roles: { web, batch } });
  // A role field holding the server default reads back null (null = the default), so web's
  // explicit allow_vm_inference = true is spelled in by one update that writes nothing.
  expect((state.roles as ObjectValue).web).toMatchObject({ token_ttl: '3600', allow_vm_inference: null, max_jwt_exp: null });
  const plan = await d.plan(state, config);
  expect(plan.changes).toEqual(['roles["web"].allow_vm_inference']);
  const applied = await d.apply(state, plan.planned, config);
  expect(writes()).toEqual([]);
  expect((await d.plan((await d.read(applied.state!))!, config)).changes).toEqual([]);
  const { allow_vm_inference: _, ...webAsDefault } = web;
  expect((await d.plan(state, d.config({ path: 'tf-imp', description: 'by hand', config: { iam_alias: 'unique_id' }, roles: { web: webAsDefault, batch } }))).changes).toEqual([]);
  await close();
});

test('a path change is a move (sys/remount) that keeps the roles and the accessor; `local` replaces; nothing is written at plan', async () => {
  const { d, writes, reset, close } = await driver();
  const { state } = await d.deploy(null, d.config({ path: 'tf-move-a', roles: { web } }));
  const roleId = ((state!.roles as ObjectValue).web as ObjectValue).role_id;
  reset();
  const moved = d.config({ path: 'tf-move-b', roles: { web } });
  const p = await d.plan((await d.read(state!))!, moved);
  expect(p.requiresReplace).toEqual([]);
  expect(p.planned!.accessor).toBe(state!.accessor);
  expect(p.diagnostics).toEqual([expect.objectContaining({ severity: 'warning', summary: 'auth/tf-move-a moves to auth/tf-move-b' })]);
  expect(writes()).toEqual([]);
  const r = await d.deploy((await d.read(state!))!, moved);
  expect(writes()).toContain('POST sys/remount');
  expect(((r.state!.roles as ObjectValue).web as ObjectValue).role_id).toBe(roleId);
  expect((await api(engine, 'GET', 'auth/tf-move-b/role/web')).body.data.role_id).toBe(roleId);
  expect((await api(engine, 'GET', 'auth/tf-move-a/role/web')).status).not.toBe(200);
  expect((await d.plan((await d.read(r.state!))!, moved)).changes).toEqual([]);
  const local = await d.plan((await d.read(r.state!))!, d.config({ path: 'tf-move-b', local: true, roles: { web } }));
  expect(local.requiresReplace).toEqual(['local']);
  await close();
});

test('invalid input names the attribute path', async () => {
  const { d, writes, close } = await driver();
  const p = await d.plan(null, d.config({ path: 'tf-bad', roles: { web: { ...web, token_ttl: 'soon' }, vm1: { type: 'vm', max_jwt_exp: '10m' } } }));
  expect(p.diagnostics).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ severity: 'error', attribute: ['roles', { key: 'web' }, 'token_ttl'] }),
      expect.objectContaining({ severity: 'error', attribute: ['roles', { key: 'vm1' }, 'max_jwt_exp'] }),
    ]),
  );
  expect(writes()).toEqual([]);
  await close();
});

test('secrets: fingerprint only in state, rotation plans an update, unset env is a plan error with no write, never in any output', async () => {
  const key1 = serviceAccountKey('key-1');
  const key2 = serviceAccountKey('key-2');
  const env = { GCP_AUTH_CREDENTIALS: key1 };
  const { d, writes, reset, close } = await driver(env);
  const config = d.config({ path: 'tf-secret', config: { credentials_env: 'GCP_AUTH_CREDENTIALS' }, roles: { web } });
  const outputs: unknown[] = [];
  const created = await d.deploy(null, config);
  outputs.push(created);
  expect((await api(engine, 'GET', 'auth/tf-secret/config')).body.data.private_key_id).toBe('key-1');
  const fp1 = (created.state!.config as ObjectValue).credentials_fingerprint;
  expect(fp1).toMatch(/^sha256:[0-9a-f]{64}$/);
  const same = await d.deploy(created.state, config);
  outputs.push(same);
  expect(same.plan.changes).toEqual([]);

  env.GCP_AUTH_CREDENTIALS = key2;
  d.ctx.env.GCP_AUTH_CREDENTIALS = key2;
  const rotated = await d.deploy(created.state, config);
  outputs.push(rotated);
  expect(rotated.plan.changes).toEqual(['config.credentials_fingerprint']);
  expect((await api(engine, 'GET', 'auth/tf-secret/config')).body.data.private_key_id).toBe('key-2');

  delete d.ctx.env.GCP_AUTH_CREDENTIALS;
  reset();
  const unset = await d.plan((await d.read(rotated.state!))!, config);
  outputs.push(unset);
  expect(unset.planned).toBeNull();
  expect(unset.diagnostics).toEqual([expect.objectContaining({ severity: 'error', summary: 'GCP_AUTH_CREDENTIALS is not set', attribute: ['config', 'credentials_env'] })]);
  expect(writes()).toEqual([]);

  // Plan-only mode (cdktf diff without production secrets): the unset secret is taken as unchanged,
  // the stored fingerprint kept, with a warning naming it; an edit still plans; apply is refused.
  d.ctx.env.KEYWARD_PLAN_ONLY = '1';
  const refreshed = (await d.read(rotated.state!))!;
  const planOnly = await d.plan(refreshed, config);
  outputs.push(planOnly);
  expect(planOnly.changes).toEqual([]);
  expect(planOnly.diagnostics).toEqual([
    expect.objectContaining({ severity: 'warning', summary: 'GCP_AUTH_CREDENTIALS is not set: taken as unchanged (plan only)', attribute: ['config', 'credentials_env'] }),
  ]);
  const edited = d.config({ path: 'tf-secret', config: { credentials_env: 'GCP_AUTH_CREDENTIALS' }, roles: { web: { ...web, token_ttl: '2h' } } });
  const editPlan = await d.plan(refreshed, edited);
  expect(editPlan.changes).toEqual(['roles["web"].token_ttl']);
  await expect(d.apply(refreshed, editPlan.planned, edited)).rejects.toThrow(/KEYWARD_PLAN_ONLY is set: nothing is applied/);
  expect(writes()).toEqual([]);
  delete d.ctx.env.KEYWARD_PLAN_ONLY;

  // Write-only: sent on create and when the version changes, null in planned and applied state.
  const wo = (version: number, key: string) => d.config({ path: 'tf-wo', config: { credentials_wo: key, credentials_wo_version: version } });
  const w1 = await d.deploy(null, wo(1, key1));
  outputs.push(w1);
  expect((await api(engine, 'GET', 'auth/tf-wo/config')).body.data.private_key_id).toBe('key-1');
  const w1b = await d.deploy(w1.state, wo(1, key2));
  outputs.push(w1b);
  expect(w1b.plan.changes).toEqual([]);
  const w2 = await d.deploy(w1.state, wo(2, key2));
  outputs.push(w2);
  expect((w2.state!.config as ObjectValue).credentials_wo).toBeNull();
  expect((await api(engine, 'GET', 'auth/tf-wo/config')).body.data.private_key_id).toBe('key-2');

  const text = JSON.stringify(outputs, (_k, v) => (typeof v === 'symbol' ? String(v) : v));
  for (const key of [key1, key2]) {
    expect(text).not.toContain(JSON.parse(key).private_key.split('\n')[1]);
    expect(text).not.toContain(JSON.stringify(key).slice(1, 60));
  }
  await close();
});

test('10,000 roles: one create, then a refresh and plan that send no write', async () => {
  const { d, sent, writes, reset, close } = await driver();
  const roles: Record<string, unknown> = {};
  for (let i = 0; i < 10_000; i++) roles[`r${i}`] = { type: 'iam', bound_service_accounts: [`sa${i}@p.iam.gserviceaccount.com`], token_ttl: `${1 + (i % 5)}h` };
  const config = d.config({ path: 'tf-big', roles });
  const { state } = await d.deploy(null, config);
  expect(Object.keys(state!.roles as ObjectValue)).toHaveLength(10_000);
  expect(Object.values(state!.roles as Record<string, ObjectValue>).every((r) => typeof r.role_id === 'string' && r.role_id !== '')).toBe(true);
  // The create: one write per role; the role_ids come back in one LIST (key_info), not a GET per role.
  expect(sent.filter((s) => s.startsWith('GET ') && !s.includes('?list=true')).length).toBeLessThan(5);
  expect(sent.filter((s) => s.includes('?list=true'))).toHaveLength(1);
  reset();
  const again = await d.deploy(state, config);
  expect(again.plan.changes).toEqual([]);
  expect(writes()).toEqual([]);
  // The refresh: sys/auth and one LIST, which carries every role (key_info): no GET per role.
  expect(sent.filter((s) => s.includes('?list=true'))).toHaveLength(1);
  expect(sent).toHaveLength(2);
  await close();
}, 180_000);

test('a backend replace (local changes) plans its create half as Terraform does, warns what the roles lose, and brings config and roles back; a mount made after the plan is refused at apply', async () => {
  const { d, writes, reset, close } = await driver({ KW_CREDS: serviceAccountKey('replace') });
  const config = d.config({ path: 'tf-replace', config: { credentials_env: 'KW_CREDS' }, roles: { web, batch } });
  const { state } = await d.deploy(null, config);
  const local = d.config({ path: 'tf-replace', local: true, config: { credentials_env: 'KW_CREDS' }, roles: { web, batch } });
  const p = await d.plan((await d.read(state!))!, local);
  expect(p.requiresReplace).toEqual(['local']);
  expect(p.diagnostics).toEqual([
    expect.objectContaining({
      severity: 'warning',
      summary: 'auth/tf-replace will be replaced (local cannot change in place) with its 2 roles',
      detail: expect.stringMatching(/revoked.*Roles deleted and created again: "batch", "web"\. For each: Every token issued through it stops renewing/),
    }),
  ]);
  const replaced = await d.deploy(state, local);
  expect(replaced.state!.local).toBe(true);
  expect((await api(engine, 'GET', 'auth/tf-replace/role?list=true')).body.data.keys.sort()).toEqual(['batch', 'web']);
  expect((await api(engine, 'GET', 'auth/tf-replace/config')).body.data.private_key_id).toBe('replace');

  // Retained: the destroy half only forgets the mount, so the create half would find it: refused at plan.
  const retained = d.config({ path: 'tf-replace', local: true, retain_on_destroy: true, config: { credentials_env: 'KW_CREDS' }, roles: { web, batch } });
  const kept = await d.deploy(replaced.state, retained);
  const first = await d.plan(kept.state, d.config({ path: 'tf-replace', retain_on_destroy: true, config: { credentials_env: 'KW_CREDS' }, roles: { web, batch } }));
  expect(first.requiresReplace).toEqual(['local']);
  const second = await d.plan(
    null,
    d.config({ path: 'tf-replace', retain_on_destroy: true, config: { credentials_env: 'KW_CREDS' }, roles: { web, batch } }),
    first.plannedPrivate,
  );
  expect(second.diagnostics).toEqual([expect.objectContaining({ severity: 'error', summary: 'auth/tf-replace cannot be replaced: retain_on_destroy keeps it' })]);

  // Planned while free, made by hand before the apply: the create refuses and writes nothing.
  const fresh = await d.plan(null, d.config({ path: 'tf-racing', roles: { web } }));
  expect(fresh.diagnostics).toEqual([]);
  await api(engine, 'POST', 'sys/auth/tf-racing', { body: { type: 'cloud', description: 'by hand' } });
  reset();
  await expect(d.apply(null, fresh.planned, d.config({ path: 'tf-racing', roles: { web } }))).rejects.toThrow('auth/tf-racing already exists on the server');
  expect(writes()).toEqual([]);
  expect((await api(engine, 'GET', 'sys/auth')).body.data['tf-racing/']).toMatchObject({ description: 'by hand' });
  await close();
});

test('creating on an existing cloud mount is refused with the import command; imported, it plans only its differences; another mount type is a plan error', async () => {
  const { d, writes, reset, close } = await driver();
  await api(engine, 'POST', 'sys/auth/tf-adopt', { body: { type: 'cloud', description: 'by hand' } });
  await api(engine, 'POST', 'auth/tf-adopt/role/web', {
    body: { type: 'iam', bound_service_accounts: web.bound_service_accounts, token_policies: web.token_policies, token_ttl: 3600 },
  });
  reset();
  const p = await d.plan(null, d.config({ path: 'tf-adopt', roles: { web } }));
  expect(p.diagnostics).toEqual([
    expect.objectContaining({
      severity: 'error',
      summary: 'auth/tf-adopt already exists on the server',
      detail: expect.stringContaining('terraform import keyward_cloud_auth_backend.<name> tf-adopt'),
      attribute: ['path'],
    }),
  ]);
  expect(p.diagnostics[0].detail).toContain('backend.importFrom("tf-adopt")');
  expect(writes()).toEqual([]);
  // Imported (what importFrom makes Terraform do), the mount plans only what differs: its description.
  const imported = (await d.read(await d.handler.import(d.ctx, 'tf-adopt')))!;
  const { allow_vm_inference: _, ...plainWeb } = web;
  const after = await d.plan(imported, d.config({ path: 'tf-adopt', description: 'by hand', config: {}, roles: { web: plainWeb } }));
  expect(after.diagnostics).toEqual([]);
  expect(after.changes).toEqual([]);
  const { state } = await d.deploy(imported, d.config({ path: 'tf-adopt', roles: { web } }));
  expect(state!.accessor).toMatch(/^auth_cloud_/);

  // The engine's only other method is the token store, at auth/token.
  const taken = await d.plan(null, d.config({ path: 'token', roles: { web } }));
  expect(taken.diagnostics).toEqual([expect.objectContaining({ severity: 'error', summary: 'auth/token is already a mount of type token, not cloud', attribute: ['path'] })]);
  await close();
});
