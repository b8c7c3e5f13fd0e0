// A Terraform state's keyward resources as keyward's record of what was applied: canonical fields
// as the provider plans them, secret fingerprints (a write-only secret as applied-unknown),
// retain_on_destroy objects, other providers' resources ignored, other formats refused.

import { APPLIED_UNKNOWN_FINGERPRINT } from '../../../src/reconcile/record';
import { recordFromState } from '../../../src/terraform-state/state-record';

const role = (extra: Record<string, unknown>) => ({ type: 'iam', role_id: 'rid', bound_service_accounts: ['a@p.iam.gserviceaccount.com'], token_ttl: null, ...extra });

export const STATE = {
  version: 4,
  terraform_version: '1.11.0',
  serial: 3,
  lineage: 'x',
  outputs: {},
  resources: [
    {
      mode: 'managed',
      type: 'keyward_cloud_auth_backend',
      name: 'cloud_resource_1',
      provider: 'provider["registry.terraform.io/keyward/keyward"]',
      instances: [
        {
          schema_version: 0,
          attributes: {
            path: 'cloud',
            description: 'e2e',
            accessor: 'auth_cloud_1',
            exclusive_roles: null,
            retain_on_destroy: null,
            config: { credentials_env: 'KW_CREDS', credentials_wo: null, credentials_wo_version: null, credentials_fingerprint: 'fp-1', iam_alias: 'unique_id' },
            roles: { web: role({ token_ttl: '1h' }), batch: role({ type: 'vm', bound_service_accounts: null, bound_zones: ['europe-west1-b'] }) },
          },
        },
      ],
    },
    { mode: 'managed', type: 'keyward_cloud_auth_role', name: 'solo', instances: [{ attributes: { backend: 'team/cloud', name: 'solo', ...role({ token_ttl: '2m' }) } }] },
    {
      mode: 'managed',
      type: 'keyward_snapshot_auto_config',
      name: 'nightly',
      instances: [
        {
          attributes: {
            name: 'nightly',
            storage_type: 'cloudthree-store',
            interval: '24h',
            path_prefix: 'e2e/',
            cloudthree_container_name: 'c',
            cloudthree_account_name: 'acct',
            cloudthree_account_key_env: null,
            cloudthree_account_key_wo: null,
            cloudthree_account_key_wo_version: 1,
            cloudthree_account_key_fingerprint: null,
            retain_on_destroy: true,
          },
        },
      ],
    },
    { mode: 'managed', type: 'null_resource', name: 'other', instances: [{ attributes: { id: '1' } }] },
    { mode: 'data', type: 'keyward_cloud_auth_role', name: 'ignored', instances: [{ attributes: { backend: 'x', name: 'y' } }] },
  ],
};

test('keyward resources become canonical record objects; others are ignored', () => {
  const s = recordFromState(JSON.stringify(STATE));
  expect(s.resources).toBe(3);
  expect(Object.keys(s.record.objects).sort()).toEqual([
    'auth/cloud',
    'auth/cloud/config',
    'auth/cloud/role/batch',
    'auth/cloud/role/web',
    'auth/team/cloud/role/solo',
    'snapshot/nightly',
  ]);
  // Durations canonical ("1h" -> 3600), as the plan's live side reads them.
  expect(s.record.objects['auth/cloud/role/web'].fields.token_ttl).toBe(3600);
  expect(s.record.objects['auth/team/cloud/role/solo'].fields.token_ttl).toBe(120);
  expect(s.record.objects['auth/cloud'].fields.description).toBe('e2e');
  expect(s.record.objects['auth/cloud/config'].fields.iam_alias).toBe('unique_id');
  expect(s.record.objects['auth/cloud/config'].secrets).toEqual({ credentials: 'fp-1' });
  expect(s.record.objects['snapshot/nightly'].fields.interval).toBe(86400);
  expect(s.record.objects['snapshot/nightly'].secrets).toEqual({ cloudthree_account_key: APPLIED_UNKNOWN_FINGERPRINT });
  expect(s.retained).toEqual(['snapshot/nightly']);
});

test('an empty state holds nothing; other formats are refused', () => {
  expect(recordFromState({ version: 4, resources: [] })).toEqual({ record: { version: 1, objects: {} }, retained: [], resources: 0 });
  expect(() => recordFromState({ version: 3, resources: [] })).toThrow(/format version 3 is not supported/);
  expect(() => recordFromState({ hello: 1 })).toThrow(/not a Terraform state/);
});

test("a stack with several servers: each aliased provider's resources are that server's record", () => {
  const res = (provider: string, path: string) => ({ mode: 'managed', type: 'keyward_cloud_auth_backend', provider, instances: [{ attributes: { path, roles: {} } }] });
  const state = { version: 4, resources: [res('provider["registry.terraform.io/keyward/keyward"]', 'main'), res('provider["registry.terraform.io/keyward/keyward"].dr', 'dr')] };
  expect(Object.keys(recordFromState(state).record.objects)).toEqual(['auth/main']);
  expect(Object.keys(recordFromState(state, 'dr').record.objects)).toEqual(['auth/dr']);
});
