// keyward_cloud_auth_role's schema: the backend's role attributes (one field table, one meaning),
// plus backend and name; a description on every attribute (the docs are generated from them).

import { backendSchema } from '../../../src/terraform/resources/cloud-auth-backend-schema';
import { roleResourceSchema } from '../../../src/terraform/resources/cloud-auth-role-schema';
import { keywardProvider } from '../../../src/terraform/keyward-provider';

test('the role resource carries exactly the nested role attributes, plus backend and name', () => {
  const nested = backendSchema.blocks!.roles!.attributes;
  const { backend, name, ...rest } = roleResourceSchema.attributes;
  expect(rest).toEqual(nested);
  expect(backend).toMatchObject({ required: true, type: { kind: 'string' } });
  expect(name).toMatchObject({ required: true, type: { kind: 'string' } });
  expect(roleResourceSchema.blocks).toBeUndefined();
});

test('every attribute of the role resource, and the resource itself, has a description', () => {
  const missing = Object.entries(roleResourceSchema.attributes)
    .filter(([, a]) => !a.description?.trim())
    .map(([n]) => n);
  expect(missing).toEqual([]);
  expect(roleResourceSchema.description).toMatch(/10,000 roles/);
});

test('the provider serves keyward_cloud_auth_role', () => {
  const types = keywardProvider({ env: {} }).resources.map((r) => r.typeName);
  expect(types).toContain('keyward_cloud_auth_role');
  expect(keywardProvider({ env: {} }).resources.find((r) => r.typeName === 'keyward_cloud_auth_role')!.schema).toBe(roleResourceSchema);
});
