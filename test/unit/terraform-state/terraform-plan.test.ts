// Terraform's JSON plan (terraform show -json) in keyward's plan format: a role dropped from a
// backend's `roles` is a delete (Terraform calls the backend an update), an edit an update, a
// destroyed snapshot config a delete (retained ones say the object stays), a bumped write-only
// version a changed secret, resource_drift the drift section; anything else is refused.

import { renderMarkdown } from '../../../src/reconcile/render-markdown';
import { planJsonSchema } from '../../../src/reconcile/render-json';
import { planFromTerraformJson } from '../../../src/terraform-state/terraform-plan';

const role = (extra: Record<string, unknown>) => ({ type: 'iam', role_id: 'rid', bound_service_accounts: ['a@p.iam.gserviceaccount.com'], ...extra });
const backend = (roles: Record<string, unknown>, wo = 1) => ({ path: 'cloud', accessor: 'a', config: { credentials_wo_version: wo, credentials_fingerprint: null }, roles });
const snap = { name: 'nightly', storage_type: 'local', interval: '1h', path_prefix: '/s', local_max_space: 1000, retain_on_destroy: true };

const tfPlan = {
  format_version: '1.2',
  terraform_version: '1.11.0',
  configuration: { provider_config: { keyward: { name: 'keyward', expressions: { address: { constant_value: 'https://vault.example.com:8200' } } } } },
  resource_drift: [
    {
      address: 'keyward_cloud_auth_backend.b',
      mode: 'managed',
      type: 'keyward_cloud_auth_backend',
      change: { actions: ['update'], before: backend({ web: role({ token_ttl: '1h' }), batch: role({}) }), after: backend({ web: role({ token_ttl: '999' }), batch: role({}) }) },
    },
  ],
  resource_changes: [
    {
      address: 'keyward_cloud_auth_backend.b',
      mode: 'managed',
      type: 'keyward_cloud_auth_backend',
      change: { actions: ['update'], before: backend({ web: role({ token_ttl: '999' }), batch: role({}) }), after: backend({ web: role({ token_ttl: '2h' }) }, 2) },
    },
    { address: 'keyward_snapshot_auto_config.s', mode: 'managed', type: 'keyward_snapshot_auto_config', change: { actions: ['delete'], before: snap, after: null } },
    { address: 'null_resource.x', mode: 'managed', type: 'null_resource', change: { actions: ['create'], before: null, after: {} } },
  ],
};

test("Terraform's decision, object by object, with drift; rendered with what needs attention first", () => {
  const p = planFromTerraformJson(JSON.stringify(tfPlan), 'tfplan.json');
  expect(planJsonSchema.safeParse(p).success).toBe(true);
  expect(p.server).toEqual({ address: 'https://vault.example.com:8200' });
  expect(p.lastApplied).toEqual({ kind: 'terraform-plan', location: 'tfplan.json' });
  expect(p.objects.map((o) => [o.id, o.action])).toEqual([
    ['auth/cloud', 'no-op'],
    ['auth/cloud/config', 'update'],
    ['auth/cloud/role/batch', 'delete'],
    ['auth/cloud/role/web', 'update'],
    ['snapshot/nightly', 'delete'],
  ]);
  expect(p.objects[1].changes).toEqual([{ field: 'credentials', sensitive: true, before: '(sensitive)', after: '(sensitive)' }]);
  expect(p.objects[3].changes).toEqual([{ field: 'token_ttl', before: 999, after: 7200 }]);
  expect(p.objects[4].reason).toMatch(/retain_on_destroy .* the object stays on the server/);
  expect(p.drift).toEqual([{ id: 'auth/cloud/role/web', field: 'token_ttl', lastApplied: 3600, live: 999, kind: 'changed' }]);
  const md = renderMarkdown(p, { applyCommand: 'terraform apply tfplan' });
  expect(md).toContain('**Plan: 0 to create, 2 to update, 0 to replace, 2 to delete.**');
  expect(md).toContain('- <code>- auth/cloud/role/batch</code> delete (removed from the desired state) `narrows-access`');
  // What each change means, as the CLI's plan says it; a config Terraform forgets (RETAIN) reduces no backups.
  expect(p.objects.find((o) => o.id === 'auth/cloud/role/web')?.meanings?.map((m) => m.label)).toEqual(['broadens-access']);
  expect(p.objects.find((o) => o.id === 'snapshot/nightly')?.meanings).toBeUndefined();
  expect(md).toContain("_Terraform's own plan, read from tfplan.json (what terraform apply of that plan does)_");
  expect(md).toContain('made outside Terraform since the last apply');
  expect(md).toContain('To apply this plan: <code>terraform apply tfplan</code>');
});

test('not a Terraform JSON plan: refused, saying what to give', () => {
  expect(() => planFromTerraformJson('{"version":4}', 'x.json')).toThrow(/x.json: not a Terraform JSON plan .*terraform show -json <saved plan>/);
  expect(() => planFromTerraformJson('PK\u0003\u0004', 'tfplan')).toThrow(/tfplan: not JSON/);
});

test('keyward show: a vm role that holds `*` says the lock-out on Vault and OpenBao, as the provider and the CLI do; not on the engine', () => {
  const vmStar = { type: 'vm', role_id: 'rid', bound_service_accounts: ['*'], bound_zones: ['europe-west1-b'] };
  const plan = (dialect?: string) => ({
    ...tfPlan,
    configuration: {
      provider_config: { keyward: { name: 'keyward', expressions: { address: { constant_value: 'x' }, ...(dialect ? { dialect: { constant_value: dialect } } : {}) } } },
    },
    resource_drift: [],
    resource_changes: [
      {
        address: 'keyward_cloud_auth_backend.b',
        mode: 'managed',
        type: 'keyward_cloud_auth_backend',
        change: { actions: ['update'], before: backend({ vms: vmStar }), after: backend({ vms: { ...vmStar, token_ttl: '1h' } }) },
      },
    ],
  });
  const warned = (p: ReturnType<typeof planFromTerraformJson>) => p.objects.find((o) => o.id === 'auth/cloud/role/vms')?.warnings;
  for (const d of ['vault', undefined]) {
    expect(warned(planFromTerraformJson(JSON.stringify(plan(d)), 'p.json'))).toEqual([
      'bound_service_accounts: on Vault and OpenBao `*` on a vm role is a literal: no VM matches; list the service accounts (the role already holds it on the server: its VMs cannot log in now)',
    ]);
  }
  expect(warned(planFromTerraformJson(JSON.stringify(plan('keyward')), 'p.json'))).toBeUndefined();
});
