// The role field table drives the other layers' lists (issue 29: one field table per object):
// these checks fail when a layer keeps a list of its own that disagrees with the table.

import { TYPE_ONLY_PROPS } from '../../../constructs/cloud-auth-role-rules';
import { MAX_JWT_EXP_DEFAULT, TYPE_ONLY_FIELDS } from '../../../src/schema/cloud-role';
import { ROLE_FIELDS, storedRoleFields } from '../../../src/schema/cloud-role-fields';
import { canonicalRoleRead } from '../../../src/schema/cloud-role-write';
import { TOKEN_ALIASES, TOKEN_FIELDS } from '../../../src/schema/token-fields';

test("the constructs' type-only props are the table's type-only fields", () => {
  for (const t of ['iam', 'vm'] as const) expect(Object.values(TYPE_ONLY_PROPS[t]).sort()).toEqual([...TYPE_ONLY_FIELDS[t]].sort());
});

test('type-only fields and defaults come from the table', () => {
  expect(TYPE_ONLY_FIELDS.iam).toEqual(ROLE_FIELDS.filter((f) => f.appliesTo === 'iam' && !f.aliasOf).map((f) => f.name));
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
