// A Terraform JSON plan's `actions` read exactly (effectOf decides it once): `forget` (a `removed`
// block with `destroy = false`), `create,forget` and `forget,create` delete nothing on the server; a replace is a
// replace even when no field says so; the newer plan JSON (identities, deferred changes, action
// invocations) is read, not refused. Real plans made by Terraform 1.15.5 (test/fixtures/terraform-plan-json)
// and hand-made ones for the action lists those do not hold.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runShow } from '../../../src/cli/commands/show-run';
import { renderMarkdown } from '../../../src/reconcile/render-markdown';
import { planJsonSchema } from '../../../src/reconcile/render-json';
import { REPLACE_FORGETTING_REASON, effectOf, FORGOTTEN_REASON, planFromTerraformJson } from '../../../src/terraform-state/terraform-plan';

const FIXTURES = join(__dirname, '../../fixtures/terraform-plan-json');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const actionsOf = (p: ReturnType<typeof planFromTerraformJson>) => p.objects.map((o) => [o.id, o.action]);

const role = (extra: Record<string, unknown> = {}) => ({ type: 'iam', role_id: 'rid', bound_service_accounts: ['a@p.iam.gserviceaccount.com'], ...extra });
const backend = (roles: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ path: 'cloud', accessor: 'a', roles, ...extra });
const snap = (name: string) => ({ name, storage_type: 'local', interval: '1h', path_prefix: '/s', local_max_space: 1000 });
const plan = (resource_changes: unknown[], more: Record<string, unknown> = {}) =>
  JSON.stringify({
    format_version: '1.2',
    terraform_version: '1.15.5',
    configuration: { provider_config: { keyward: { name: 'keyward', expressions: { address: { constant_value: 'http://127.0.0.1:8200' } } } } },
    resource_changes,
    ...more,
  });
const change = (type: string, actions: string[], before: unknown, after: unknown, extra: Record<string, unknown> = {}) => ({
  address: `${type}.x`,
  mode: 'managed',
  type,
  change: { actions, before, after, ...extra },
});

test("each action list Terraform's JSON format documents, decided in one place", () => {
  expect(
    [
      ['no-op'],
      ['read'],
      ['create'],
      ['update'],
      ['delete'],
      ['delete', 'create'],
      ['create', 'delete'],
      ['forget'],
      ['create', 'forget'],
      ['forget', 'create'],
      ['something-new'],
      undefined,
    ].map((a) => [a?.join(','), effectOf(a)]),
  ).toEqual([
    ['no-op', 'none'],
    ['read', 'none'],
    ['create', 'write'],
    ['update', 'write'],
    ['delete', 'destroy'],
    ['delete,create', 'replace'],
    ['create,delete', 'replace'],
    ['forget', 'forget'],
    ['create,forget', 'replace-forgetting'],
    ['forget,create', 'replace-forgetting'],
    ['something-new', 'values'],
    [undefined, 'values'],
  ]);
});

test('Terraform 1.15 `removed { lifecycle { destroy = false } }`: every object stays on the server, nothing is deleted', () => {
  const p = planFromTerraformJson(fixture('tf1.15.5-removed-destroy-false.json'), 'forget.json');
  expect(planJsonSchema.safeParse(p).success).toBe(true);
  expect(actionsOf(p)).toEqual([
    ['auth/cloud', 'no-op'],
    ['auth/cloud/role/web', 'no-op'],
    ['snapshot/nightly', 'no-op'],
  ]);
  for (const o of p.objects) {
    expect(o.reason).toBe(FORGOTTEN_REASON);
    expect(o.meanings).toBeUndefined();
    expect(o.warnings).toBeUndefined();
  }
  expect(p.summary).toMatchObject({ delete: 0, create: 0, update: 0, replace: 0 });
  const md = renderMarkdown(p, { applyCommand: 'terraform apply forget.tfplan' });
  expect(md).toContain('**Plan: 0 to create, 0 to update, 0 to replace, 0 to delete.**');
  expect(md).not.toMatch(/locks-out|revokes-tokens|reduces-backups|narrows-access/);
});

test('Terraform 1.15, a forgotten backend beside a destroyed snapshot config: only the config is deleted', () => {
  const p = planFromTerraformJson(fixture('tf1.15.5-forget-and-delete.json'), 'mixed.json');
  expect(actionsOf(p)).toEqual([
    ['auth/cloud', 'no-op'],
    ['auth/cloud/role/web', 'no-op'],
    ['snapshot/nightly', 'delete'],
  ]);
  expect(p.objects[0].reason).toBe(FORGOTTEN_REASON);
  expect(p.objects[2].meanings?.map((m) => m.label)).toEqual(['reduces-backups']);
  expect(renderMarkdown(p, { applyCommand: 'terraform apply mixed.tfplan' })).toContain('**Plan: 0 to create, 0 to update, 0 to replace, 1 to delete.**');
});

test('`create,forget` and `forget,create`: the object is written over, the earlier one forgotten; nothing deleted, not even a retyped role', () => {
  for (const actions of [
    ['create', 'forget'],
    ['forget', 'create'],
  ]) {
    const p = planFromTerraformJson(
      plan([
        change(
          'keyward_cloud_auth_backend',
          actions,
          backend({ web: role(), old: role() }),
          backend({ web: role({ type: 'vm', bound_zones: ['europe-west1-b'], bound_service_accounts: null }) }),
        ),
      ]),
      'p.json',
    );
    expect(actionsOf(p)).toEqual([
      ['auth/cloud', 'no-op'],
      ['auth/cloud/role/old', 'no-op'],
      ['auth/cloud/role/web', 'update'],
    ]);
    expect(p.objects[1].reason).toBe(FORGOTTEN_REASON);
    expect(p.objects[2].reason).toBe(REPLACE_FORGETTING_REASON);
    expect(p.summary).toMatchObject({ delete: 0, replace: 0 });
  }
});

test('`delete,create` and `create,delete`: a replace of the object even when no field of it changes', () => {
  for (const actions of [
    ['delete', 'create'],
    ['create', 'delete'],
  ]) {
    const p = planFromTerraformJson(
      plan([change('keyward_cloud_auth_backend', actions, backend({ web: role() }, { description: 'a' }), backend({ web: role() }, { description: 'b' }))]),
      'p.json',
    );
    expect(actionsOf(p)).toEqual([
      ['auth/cloud', 'replace'],
      ['auth/cloud/role/web', 'replace'],
    ]);
    expect(p.objects[0].reason).toBe('Terraform replaces keyward_cloud_auth_backend.x (destroy and create)');
    expect(p.objects[0].meanings?.map((m) => m.label)).toContain('revokes-tokens');
  }
});

test('`delete`, `create`, `update` and `no-op` as before', () => {
  const p = planFromTerraformJson(
    plan([
      change('keyward_snapshot_auto_config', ['delete'], snap('gone'), null),
      change('keyward_snapshot_auto_config', ['create'], null, snap('new')),
      change('keyward_snapshot_auto_config', ['update'], snap('edit'), { ...snap('edit'), interval: '2h' }),
      change('keyward_snapshot_auto_config', ['no-op'], snap('same'), snap('same')),
    ]),
    'p.json',
  );
  expect(actionsOf(p)).toEqual([
    ['snapshot/edit', 'update'],
    ['snapshot/gone', 'delete'],
    ['snapshot/new', 'create'],
    ['snapshot/same', 'no-op'],
  ]);
});

test('a forgotten exclusive set of snapshot configs deletes none of them', () => {
  const p = planFromTerraformJson(plan([change('keyward_exclusive_snapshot_configs', ['forget'], { names: ['a', 'b'] }, null)]), 'p.json');
  expect(p.objects).toEqual([]);
});

test('newer plan JSON (identities, deferred changes, action invocations) is read, not refused; a deferred change is not applied by this plan', () => {
  const p = planFromTerraformJson(
    plan([change('keyward_snapshot_auto_config', ['update'], snap('n'), { ...snap('n'), interval: '2h' }, { before_identity: { name: 'n' }, after_identity: { name: 'n' } })], {
      deferred_changes: [{ reason: 'provider_config_unknown', resource_change: change('keyward_snapshot_auto_config', ['create'], null, snap('later')) }],
      action_invocations: [
        {
          address: 'action.local_command.notify',
          type: 'local_command',
          name: 'notify',
          config_values: {},
          provider_name: 'registry.terraform.io/hashicorp/local',
          lifecycle_action_trigger: {
            triggering_resource_address: 'keyward_snapshot_auto_config.x',
            action_trigger_event: 'after_update',
            action_trigger_block_index: 0,
            actions_list_index: 0,
          },
        },
      ],
    }),
    'p.json',
  );
  expect(actionsOf(p)).toEqual([['snapshot/n', 'update']]);
  expect(p.objects[0].changes).toEqual([{ field: 'interval', before: 3600, after: 7200 }]);
});

test('keyward show of the Terraform 1.15 plans: forgetting is no change for --detailed-exitcode, a delete is', () => {
  const show = (name: string) => {
    let out = '';
    const code = runShow(join(FIXTURES, name), { format: 'text', detailedExitcode: true, applyCommand: 'terraform apply tfplan' }, (s) => (out += s));
    return { code, out };
  };
  const forget = show('tf1.15.5-removed-destroy-false.json');
  expect(forget.code).toBe(0);
  expect(forget.out).toContain('Plan: 0 to create, 0 to update, 0 to replace, 0 to delete.');
  const mixed = show('tf1.15.5-forget-and-delete.json');
  expect(mixed.code).toBe(2);
  expect(mixed.out).toContain('Plan: 0 to create, 0 to update, 0 to replace, 1 to delete.');
  expect(mixed.out).not.toMatch(/auth\/cloud.*delet/);
});
