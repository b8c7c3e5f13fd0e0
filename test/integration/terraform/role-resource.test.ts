// keyward_cloud_auth_role through the plugin contract against the real engine on a loopback port:
// the same role means the same thing as in a backend's nested `roles` (one implementation), plans
// canonically, sees drift, refuses to overwrite an existing role, imports by <mount>/<name>, warns
// when a plan deletes or replaces the role, and applies in the block's namespace whatever
// VAULT_NAMESPACE says.

import type { Engine } from '../../../src/engine/engine';
import type { ObjectValue } from '../../../src/terraform/plugin/contract';
import { keywardProvider, type KeywardProviderContext } from '../../../src/terraform/keyward-provider';
import { api, ROOT_TOKEN, startTestEngine } from '../../support/engine';
import { TerraformDriver } from '../../support/terraform-driver';
import { providerSession } from '../../support/provider-session';

let engine: Engine;
beforeAll(async () => {
  engine = await startTestEngine();
});
afterAll(async () => {
  await engine.close();
});

const driver = (typeName = 'keyward_cloud_auth_role') =>
  providerSession({ env: { VAULT_ADDR: engine.url, VAULT_TOKEN: ROOT_TOKEN }, typeName, config: { fingerprint_salt: 'role-resource-salt-0123' } });

const mount = (path: string) => api(engine, 'POST', `sys/auth/${path}`, { body: { type: 'cloud' } });
const web = { type: 'iam', bound_service_accounts: ['app@proj-a.iam.gserviceaccount.com'], token_ttl: '1h', token_policies: ['read', 'write'], max_jwt_exp: '10m' };

test('create, no-op redeploy, equivalent spellings; the server holds what the nested form writes', async () => {
  await mount('r-basic');
  const { d, writes, reset, close } = await driver();
  const config = d.config({ backend: 'r-basic', name: 'web', ...web });
  const created = await d.deploy(null, config);
  expect(created.state).toMatchObject({ backend: 'r-basic', name: 'web', role_id: expect.any(String), token_ttl: '1h' });

  reset();
  const again = await d.deploy(created.state, config);
  expect(again.plan.changes).toEqual([]);
  expect(writes()).toEqual([]);
  const respelled = d.config({ backend: 'r-basic', name: 'web', ...web, token_ttl: '3600', token_policies: ['write', 'read'], max_jwt_exp: 600 });
  expect((await d.plan((await d.read(created.state!))!, respelled)).changes).toEqual([]);

  // The same role through the backend's nested roles: the live roles are equal but for role_id.
  const b = await driver('keyward_cloud_auth_backend');
  await b.d.deploy(null, b.d.config({ path: 'r-nested', roles: { web } }));
  const strip = (data: Record<string, unknown>) => ({ ...data, role_id: undefined });
  const viaResource = (await api(engine, 'GET', 'auth/r-basic/role/web')).body.data;
  const viaNested = (await api(engine, 'GET', 'auth/r-nested/role/web')).body.data;
  expect(strip(viaResource)).toEqual(strip(viaNested));
  await b.close();
  await close();
});

test('drift is read back, planned field by field, and corrected with one write', async () => {
  await mount('r-drift');
  const { d, writes, reset, close } = await driver();
  const config = d.config({ backend: 'r-drift', name: 'web', ...web });
  const { state } = await d.deploy(null, config);
  await api(engine, 'POST', 'auth/r-drift/role/web', { body: { token_ttl: 60, token_max_ttl: 7200 } });
  const refreshed = (await d.read(state!))!;
  const plan = await d.plan(refreshed, config);
  expect(plan.changes.sort()).toEqual(['token_max_ttl', 'token_ttl']);
  expect(plan.requiresReplace).toEqual([]);
  reset();
  const fixed = await d.apply(refreshed, plan.planned, config);
  expect(writes()).toEqual(['POST auth/r-drift/role/web']);
  expect((await api(engine, 'GET', 'auth/r-drift/role/web')).body.data).toMatchObject({ token_ttl: 3600, token_max_ttl: 0 });
  expect((await d.plan((await d.read(fixed.state!))!, config)).changes).toEqual([]);
  // Deleted out of band: read says gone, so Terraform plans a create.
  await api(engine, 'DELETE', 'auth/r-drift/role/web');
  expect(await d.read(fixed.state!)).toBeNull();
  await close();
});

test('validation: one diagnostic per bad value, on its own attribute, all at once', async () => {
  const { d, close } = await driver();
  const bad = await d.plan(
    null,
    d.config({ backend: '/bad/', name: 'Web', type: 'iam', bound_service_accounts: ['a@b.iam.gserviceaccount.com'], max_jwt_exp: '2h', token_bound_cidrs: ['10.0.0.300'] }),
  );
  const at = bad.diagnostics.map((x) => `${(x.attribute ?? []).join('.')}: ${x.summary}`).sort();
  expect(at).toHaveLength(4);
  expect(at[0]).toMatch(/^backend: Invalid backend "\/bad\/"/);
  expect(at[1]).toMatch(/^max_jwt_exp: .*max_jwt_exp/);
  expect(at[2]).toMatch(/^name: Invalid role name "Web"/);
  expect(at[3]).toMatch(/^token_bound_cidrs/);
  // A vm field on an iam role.
  const wrong = await d.plan(null, d.config({ backend: 'cloud', name: 'web', type: 'iam', bound_service_accounts: ['a@b.iam.gserviceaccount.com'], bound_zones: ['z'] }));
  expect(wrong.diagnostics).toEqual([expect.objectContaining({ attribute: ['bound_zones'], summary: expect.stringContaining('does not apply to iam roles') })]);
  await close();
});

test('a role already on the server is refused with the import command; import <mount>/<name> adopts it', async () => {
  await mount('team/r-import');
  await api(engine, 'POST', 'auth/team/r-import/role/legacy', { body: { type: 'vm', bound_zones: ['europe-west1-b'], token_ttl: 1800 } });
  const { d, writes, reset, close } = await driver();
  const config = d.config({ backend: 'team/r-import', name: 'legacy', type: 'vm', bound_zones: ['europe-west1-b'], token_ttl: '30m' });
  const refused = await d.plan(null, config);
  expect(refused.diagnostics).toEqual([
    expect.objectContaining({
      severity: 'error',
      attribute: ['name'],
      summary: 'Role "legacy" already exists on auth/team/r-import',
      detail: expect.stringContaining('terraform import keyward_cloud_auth_role.<name> team/r-import/legacy'),
    }),
  ]);
  await expect(d.handler.import(d.ctx, 'no-slash')).rejects.toThrow(/<mount path>\/<role name>/);
  const imported = await d.handler.import(d.ctx, 'team/r-import/legacy');
  expect(imported).toMatchObject({ backend: 'team/r-import', name: 'legacy' });
  const state = (await d.read(imported))!;
  expect(state).toMatchObject({ type: 'vm', token_ttl: '1800', role_id: expect.any(String) });
  reset();
  expect((await d.deploy(state, config)).plan.changes).toEqual([]);
  expect(writes()).toEqual([]);
  await close();
});

test('a type change replaces (warning), its create half is not refused; destroy warns and deletes', async () => {
  await mount('r-replace');
  const { d, close } = await driver();
  const { state } = await d.deploy(null, d.config({ backend: 'r-replace', name: 'web', ...web }));
  const vm = d.config({ backend: 'r-replace', name: 'web', type: 'vm', bound_zones: ['z1'] });
  const prior = (await d.read(state!))!;
  const p = await d.handler.plan(d.ctx, { prior, config: vm, proposed: vm });
  expect(p.requiresReplace).toEqual([['type']]);
  expect(p.diagnostics).toEqual([
    expect.objectContaining({ severity: 'warning', summary: 'Role "web" on auth/r-replace will be replaced: type iam -> vm', detail: expect.stringContaining('stops renewing') }),
  ]);
  // Terraform plans the create half with a null prior and the first plan's private bytes.
  const create = await d.handler.plan(d.ctx, { prior: null, config: vm, proposed: vm, priorPrivate: p.plannedPrivate });
  expect(create.diagnostics).toEqual([]);
  expect((await d.handler.apply(d.ctx, { prior, planned: null, config: null })).state).toBeNull();
  const created = await d.handler.apply(d.ctx, { prior: null, planned: create.planned, config: vm, plannedPrivate: p.plannedPrivate });
  expect(created.state).toMatchObject({ type: 'vm', role_id: expect.any(String) });
  expect(created.state!.role_id).not.toBe(prior.role_id);

  const destroy = await d.handler.plan(d.ctx, { prior: created.state as ObjectValue, config: null, proposed: null });
  expect(destroy).toMatchObject({ planned: null, diagnostics: [expect.objectContaining({ severity: 'warning', summary: 'Role "web" will be deleted from auth/r-replace' })] });
  expect((await d.apply(created.state, null, null)).state).toBeNull();
  expect((await api(engine, 'GET', 'auth/r-replace/role/web')).status).toBe(404);
  await close();
});

test("the provider block's namespace wins over VAULT_NAMESPACE: a stray export does not apply the stack into another namespace", async () => {
  const ent = await startTestEngine({ edition: 'enterprise' });
  try {
    for (const ns of ['team', 'other']) {
      expect((await api(ent, 'POST', `sys/namespaces/${ns}`)).status).toBeLessThan(300);
      expect((await api(ent, 'POST', 'sys/auth/nsauth', { namespace: ns, body: { type: 'cloud' } })).status).toBe(204);
    }
    const provider = keywardProvider({ env: { VAULT_ADDR: ent.url, VAULT_TOKEN: ROOT_TOKEN, VAULT_NAMESPACE: 'other' } });
    const d = await TerraformDriver.configure<KeywardProviderContext>(provider, 'keyward_cloud_auth_role', { namespace: 'team', fingerprint_salt: 'role-resource-salt-0123' });
    await d.deploy(null, d.config({ backend: 'nsauth', name: 'web', ...web }));
    expect((await api(ent, 'GET', 'auth/nsauth/role/web', { namespace: 'team' })).status).toBe(200);
    expect((await api(ent, 'GET', 'auth/nsauth/role/web', { namespace: 'other' })).status).toBe(404);
    await provider.stop!();
    // Without a namespace in the block, VAULT_NAMESPACE is the fallback.
    const fallback = keywardProvider({ env: { VAULT_ADDR: ent.url, VAULT_TOKEN: ROOT_TOKEN, VAULT_NAMESPACE: 'other' } });
    const f = await TerraformDriver.configure<KeywardProviderContext>(fallback, 'keyward_cloud_auth_role', { fingerprint_salt: 'role-resource-salt-0123' });
    await f.deploy(null, f.config({ backend: 'nsauth', name: 'api', ...web }));
    expect((await api(ent, 'GET', 'auth/nsauth/role/api', { namespace: 'other' })).status).toBe(200);
    expect((await api(ent, 'GET', 'auth/nsauth/role/api', { namespace: 'team' })).status).toBe(404);
    await fallback.stop!();
  } finally {
    await ent.close();
  }
});
