// One round trip per field table (role, auth config, mount, snapshot config): an object declaring
// every field of its table with a value other than the default is written to the real engine,
// read back and compared canonically, and the plan after the apply is empty: declared → written →
// read → canonical, equal. Each declared object must cover its whole table (less the fields named
// below with the reason), so a field added to a table fails here until it round-trips.

import type { Engine } from '../../../src/engine/engine';
import { ROLE_FIELDS } from '../../../src/schema/cloud-role-fields';
import { CLOUD_CONFIG_FIELDS } from '../../../src/schema/cloud-config-fields';
import { MOUNT_FIELDS } from '../../../src/schema/auth-mount-fields';
import { SNAPSHOT_FIELDS } from '../../../src/schema/snapshot-fields';
import { api, startTestEngine } from '../../support/engine';
import { client, manifest, serviceAccountKey, Session } from './helpers';

let engine: Engine;
beforeAll(async () => {
  engine = await startTestEngine({ edition: 'enterprise' });
});
afterAll(() => engine.close());

const iam = {
  name: 'rt-iam',
  type: 'iam' as const,
  bound_service_accounts: ['app@proj-a.iam.gserviceaccount.com'],
  bound_projects: ['proj-a'],
  add_group_aliases: true,
  max_jwt_exp: '20m',
  allow_vm_inference: true,
  token_policies: ['web', 'default'],
  token_ttl: '1h',
  token_max_ttl: '2h',
  token_explicit_max_ttl: '3h',
  token_period: '30m',
  token_no_default_policy: true,
  token_num_uses: 5,
  token_type: 'service',
  token_bound_cidrs: ['10.0.0.0/8'],
};
const vm = {
  name: 'rt-vm',
  type: 'vm' as const,
  bound_service_accounts: ['vm@proj-a.iam.gserviceaccount.com'],
  bound_zones: ['us-east1-b'],
  bound_regions: ['us-east1'],
  bound_instance_groups: ['workers'],
  bound_labels: { env: 'prod' },
};
const config = {
  credentials: { secretRef: { env: 'RT_CREDENTIALS' } },
  iam_alias: 'unique_id',
  iam_metadata: ['project_id', 'role'],
  vm_alias: 'instance_id',
  vm_metadata: ['zone', 'instance_name'],
  custom_endpoint: { api: 'http://127.0.0.1:9/api', iam: 'http://127.0.0.1:9/iam' },
  identity_token_ttl: '30m',
};
const mount = { description: 'round trip', local: true, default_lease_ttl: '1h', max_lease_ttl: '4h', token_type: 'default-service', listing_visibility: 'unauth' };
const snapshots = [
  { name: 'rt-local', storage_type: 'local' as const, interval: '2h', retain: 3, path_prefix: '/tmp/kw-rt', file_prefix: 'rt', local_max_space: 1_000_000 },
  {
    name: 'rt-one',
    storage_type: 'cloudone-store' as const,
    interval: '3h',
    path_prefix: 'p/',
    autoload_enabled: true,
    cloudone_bucket: 'b',
    cloudone_region: 'eu-west-1',
    cloudone_access_key_id: 'EXAMPLE-ACCESS-KEY-ID',
    cloudone_secret_access_key: { secretRef: { env: 'RT_S3_SECRET' } },
    cloudone_session_token: { secretRef: { env: 'RT_S3_SESSION' } },
    cloudone_endpoint: 'http://127.0.0.1:9',
    cloudone_disable_tls: true,
    cloudone_force_path_style: true,
    cloudone_enable_kms: true,
    cloudone_kms_key: 'alias/backups',
  },
  { name: 'rt-sse', storage_type: 'cloudone-store' as const, interval: '3h', path_prefix: 'p/', cloudone_bucket: 'b', cloudone_region: 'r', cloudone_server_side_encryption: true },
  {
    name: 'rt-two',
    storage_type: 'cloudtwo-store' as const,
    interval: '4h',
    path_prefix: 'p/',
    cloudtwo_bucket: 'b',
    cloudtwo_service_account_key: { secretRef: { env: 'RT_GCS_KEY' } },
    cloudtwo_endpoint: 'http://127.0.0.1:9',
    cloudtwo_disable_tls: true,
  },
  {
    name: 'rt-three',
    storage_type: 'cloudthree-store' as const,
    interval: '5h',
    path_prefix: 'p/',
    cloudthree_container_name: 'c',
    cloudthree_account_name: 'acct',
    cloudthree_auth_mode: 'shared',
    cloudthree_account_key: { secretRef: { env: 'RT_AZ_KEY' } },
    cloudthree_blob_environment: 'AzurePublicCloud',
    cloudthree_endpoint: 'http://127.0.0.1:9',
  },
  {
    name: 'rt-managed',
    storage_type: 'cloudthree-store' as const,
    interval: '5h',
    path_prefix: 'p/',
    cloudthree_container_name: 'c',
    cloudthree_account_name: 'acct',
    cloudthree_auth_mode: 'managed',
    cloudthree_client_id: 'client-1',
  },
];

/** Fields not declared here, each with why. */
const NOT_DECLARED: Record<string, string> = {
  // Aliases of declared fields (a round trip of the field they fold into covers them).
  ...Object.fromEntries(ROLE_FIELDS.filter((f) => f.aliasOf).map((f) => [f.name, 'alias'])),
  name: 'the identity, not a field',
  type: 'declared on every role',
  // Keyless (workload identity federation) and credentials exclude each other in one config.
  service_account_email: 'keyless only, excludes credentials',
  identity_token_audience: 'keyless only, excludes credentials',
  rotation_period: 'root rotation, excludes rotation_schedule',
  rotation_schedule: 'root rotation: needs a rotation the engine runs against a live key',
  rotation_window: 'root rotation: goes with rotation_schedule',
  disable_automated_rotation: 'root rotation',
};

const declaredNames = (objects: object[]) => new Set(objects.flatMap((o) => Object.keys(o)));

test.each([
  ['role', ROLE_FIELDS, [iam, vm]],
  ['auth config', CLOUD_CONFIG_FIELDS, [config]],
  ['mount', MOUNT_FIELDS, [mount]],
  ['snapshot config', SNAPSHOT_FIELDS, snapshots],
] as const)('the %s table: every field is declared here or named in NOT_DECLARED', (_what, table, objects) => {
  const declared = declaredNames(objects as unknown as object[]);
  expect(table.map((f) => f.name).filter((n) => !declared.has(n) && !(n in NOT_DECLARED))).toEqual([]);
});

test('declared → written → read → canonical: every object of every table plans nothing after its apply', async () => {
  const env = {
    RT_CREDENTIALS: serviceAccountKey('rt-key-1'),
    RT_S3_SECRET: 's3-secret',
    RT_S3_SESSION: 's3-session',
    RT_GCS_KEY: serviceAccountKey('rt-gcs'),
    RT_AZ_KEY: 'az-key',
  };
  const m = manifest({ authBackends: [{ path: 'rt', type: 'cloud', ...mount, config, roles: [iam, vm] }], snapshotConfigs: snapshots } as never);
  const s = new Session(client(engine.url), env);
  const { plan } = await s.apply(m);
  expect(plan.objects.filter((o) => o.action === 'create').length).toBe(2 + 2 + snapshots.length);
  const again = await s.plan(m);
  expect(again.objects.filter((o) => o.action !== 'no-op').map((o) => [o.id, o.action, o.changes])).toEqual([]);
  // The server holds the declared values, not its defaults (an empty plan alone would also follow
  // from a field the reconciler never wrote and never compared).
  const get = async (path: string) => ((await api(engine, 'GET', path)).body as { data: Record<string, unknown> }).data;
  expect((await get('sys/auth'))['rt/']).toMatchObject({
    description: 'round trip',
    local: true,
    config: { default_lease_ttl: 3600, max_lease_ttl: 14400, listing_visibility: 'unauth' },
  });
  expect(await get('auth/rt/config')).toMatchObject({ iam_alias: 'unique_id', vm_alias: 'instance_id', identity_token_ttl: 1800 });
  expect(await get('auth/rt/role/rt-iam')).toMatchObject({ max_jwt_exp: 1200, token_num_uses: 5, token_explicit_max_ttl: 10800, allow_vm_inference: true });
  expect(await get('auth/rt/role/rt-vm')).toMatchObject({ bound_regions: ['us-east1'], bound_instance_groups: ['workers'] });
  expect(await get('sys/storage/raft/snapshot-auto/config/rt-one')).toMatchObject({
    interval: 10800,
    autoload_enabled: true,
    cloudone_kms_key: 'alias/backups',
    cloudone_force_path_style: true,
  });
});
