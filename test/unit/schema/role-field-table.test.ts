// The role field table drives the other layers' lists (issue 29: one field table per object):
// these checks fail when a layer keeps a list of its own that disagrees with the table.

import { CloudAuthBackend, CloudAuthRole, type CloudAuthRoleProps } from '../../../constructs';
import { TYPE_ONLY_PROPS } from '../../../constructs/cloud-auth-role-rules';
import { newStack, problemsOf } from '../constructs/fixtures';
import { MAX_JWT_EXP_DEFAULT, TYPE_ONLY_FIELDS } from '../../../src/schema/cloud-role';
import { ROLE_FIELDS, storedRoleFields } from '../../../src/schema/cloud-role-fields';
import { canonicalRoleRead } from '../../../src/schema/cloud-role-write';
import { TOKEN_ALIASES, TOKEN_FIELDS } from '../../../src/schema/token-fields';

// Vault's GCP plugin (path_role.go) takes these fields for one role type only (gce renamed vm).
// Written out here, not derived: a table that gained, lost or moved a type-only field fails.
const PLUGIN_TYPE_ONLY = { iam: ['max_jwt_exp', 'allow_vm_inference'], vm: ['bound_zones', 'bound_regions', 'bound_instance_groups', 'bound_labels'] };
/** A valid value for each type-only prop: the refusal below is about the role type only. */
const SAMPLE: Record<string, unknown> = {
  maxJwtExp: '10m',
  allowVmInference: true,
  boundZones: ['us-east1-b'],
  boundRegions: ['us-east1'],
  boundInstanceGroups: ['g'],
  boundLabels: ['env:prod'],
};

test("the table's type-only fields are the plugin's, and a construct of the other type refuses each by its prop name", () => {
  for (const t of ['iam', 'vm'] as const) expect([t, [...TYPE_ONLY_FIELDS[t]].sort()]).toEqual([t, [...PLUGIN_TYPE_ONLY[t]].sort()]);
  for (const [own, other] of [
    ['iam', 'vm'],
    ['vm', 'iam'],
  ] as const) {
    for (const [prop, field] of Object.entries(TYPE_ONLY_PROPS[own])) {
      expect([prop, field.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase())]).toEqual([prop, prop]);
      const { stack, server } = newStack();
      const backend = new CloudAuthBackend(stack, 'cloud', { server });
      const props = { type: other, backend, boundServiceAccounts: ['a@p.iam.gserviceaccount.com'], boundZones: other === 'vm' ? ['us-east1-b'] : undefined, [prop]: SAMPLE[prop] };
      expect([prop, problemsOf(() => new CloudAuthRole(stack, 'r', props as unknown as CloudAuthRoleProps)).join('\n')]).toEqual([
        prop,
        expect.stringMatching(new RegExp(`${prop}.* not valid for a role of type ${other}`)),
      ]);
    }
  }
});

test('what an absent value means comes from the table', () => {
  expect(MAX_JWT_EXP_DEFAULT).toBe(900);
  // Vault's read leaves a stored 0 out (path_role.go): the table says what an absent value means.
  expect(ROLE_FIELDS.find((f) => f.name === 'max_jwt_exp')).toMatchObject({ default: 900, readAbsent: 0 });
});

test('the token fields are one group the role table takes whole (tokenutil.AddTokenFields)', () => {
  const names = ROLE_FIELDS.map((f) => f.name);
  for (const f of [...TOKEN_FIELDS, ...TOKEN_ALIASES]) expect(names).toContain(f.name);
  expect(TOKEN_ALIASES.map((f) => [f.name, f.aliasOf])).toEqual([
    ['policies', 'token_policies'],
    ['ttl', 'token_ttl'],
    ['max_ttl', 'token_max_ttl'],
    ['period', 'token_period'],
  ]);
});

test("the engine's new role and its read shape are the table's: defaults, and the fields a read leaves out when empty", () => {
  for (const type of ['iam', 'vm'] as const) {
    const read = canonicalRoleRead({ type, bound_service_accounts: ['a@p.iam.gserviceaccount.com'] });
    const shown = storedRoleFields(type).filter((f) => f.readAbsent === undefined || f.name === 'bound_service_accounts' || (f.name === 'max_jwt_exp' && type === 'iam'));
    expect(Object.keys(read).sort()).toEqual(['type', ...shown.map((f) => f.name)].sort());
    for (const f of shown) if (f.name !== 'bound_service_accounts') expect([f.name, read[f.name]]).toEqual([f.name, f.default]);
  }
  // A stored 0 is left out of the read (path_role.go), and a deprecated name shows only when used.
  expect(canonicalRoleRead({ type: 'iam', bound_service_accounts: ['*'], max_jwt_exp: 0 })).not.toHaveProperty('max_jwt_exp');
  expect(canonicalRoleRead({ type: 'iam', bound_service_accounts: ['*'], ttl: 60 })).toMatchObject({ ttl: 60, token_ttl: 60 });
});
