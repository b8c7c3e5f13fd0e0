// The role field table drives the other layers' lists (issue 29: one field table per object):
// these checks fail when a layer keeps a list of its own that disagrees with the table.

import { TYPE_ONLY_PROPS } from '../../../constructs/cloud-auth-role-rules';
import { MAX_JWT_EXP_DEFAULT, TYPE_ONLY_FIELDS } from '../../../src/schema/cloud-role';
import { ROLE_FIELDS } from '../../../src/schema/cloud-role-fields';

test("the constructs' type-only props are the table's type-only fields", () => {
  for (const t of ['iam', 'vm'] as const) expect(Object.values(TYPE_ONLY_PROPS[t]).sort()).toEqual([...TYPE_ONLY_FIELDS[t]].sort());
});

test('type-only fields and defaults come from the table', () => {
  expect(TYPE_ONLY_FIELDS.iam).toEqual(ROLE_FIELDS.filter((f) => f.appliesTo === 'iam' && !f.aliasOf).map((f) => f.name));
  expect(MAX_JWT_EXP_DEFAULT).toBe(900);
  // Vault's read leaves a stored 0 out (path_role.go): the table says what an absent value means.
  expect(ROLE_FIELDS.find((f) => f.name === 'max_jwt_exp')).toMatchObject({ default: 900, readAbsent: 0 });
});
