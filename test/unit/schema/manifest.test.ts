// The manifest schema: accepted shapes, every problem reported with its path, secrets only as
// references, and keyed fingerprints.

import { fingerprintSecret, MANIFEST_FILE_NAME, manifestSchema, parseManifest } from '../../../src/schema/manifest';

const base = { version: 1, fingerprintSalt: 'salt-0123456789abcdef' };

test('a minimal manifest gets its defaults', () => {
  expect(parseManifest(base)).toEqual({ ...base, server: {}, authBackends: [], snapshotConfigs: [], exclusiveSnapshotConfigs: false });
  expect(MANIFEST_FILE_NAME).toBe('keyward.manifest.json');
});

test('a full manifest parses', () => {
  const m = parseManifest({
    ...base,
    stack: 'prod',
    server: { address: 'https://vault.example:8200', namespace: 'team-a' },
    authBackends: [
      {
        path: 'team/cloud',
        type: 'cloud',
        description: 'd',
        config: {
          credentials: { secretRef: { env: 'CREDS', fingerprint: fingerprintSecret('s', 'v') } },
          iam_alias: 'unique_id',
          vm_metadata: [],
          custom_endpoint: { iam: 'https://iam' },
        },
        roles: [
          { name: 'web', type: 'iam', bound_service_accounts: 'a@b', token_ttl: '1h', max_jwt_exp: 600, policies: 'x' },
          { name: 'batch.v2', type: 'vm', bound_labels: { env: 'prod' }, bound_zones: ['z'] },
        ],
        exclusiveRoles: true,
      },
    ],
    snapshotConfigs: [
      { name: 'local', storage_type: 'local', interval: 3600, path_prefix: '/x', local_max_space: '1000' },
      {
        name: 's3',
        storage_type: 'cloudone-store',
        interval: '1h',
        path_prefix: 'p',
        cloudone_bucket: 'b',
        cloudone_region: 'r',
        cloudone_secret_access_key: { secretRef: { env: 'S3_KEY' } },
      },
      { name: 'gcs', storage_type: 'cloudtwo-store', interval: '1h', path_prefix: 'p/', cloudtwo_bucket: 'b' },
      { name: 'az', storage_type: 'cloudthree-store', interval: '1h', path_prefix: 'p/', cloudthree_container_name: 'c', cloudthree_account_key: { secretRef: { env: 'AZ' } } },
    ],
    exclusiveSnapshotConfigs: true,
  });
  expect(m.authBackends[0].roles).toHaveLength(2);
  expect(m.snapshotConfigs.map((s) => s.storage_type)).toEqual(['local', 'cloudone-store', 'cloudtwo-store', 'cloudthree-store']);
});

test('all problems are listed with their paths', () => {
  let msg = '';
  try {
    parseManifest({
      version: 2,
      fingerprintSalt: 'short',
      authBackends: [
        {
          path: '/cloud/',
          type: 'cloud',
          roles: [
            { name: 'a', type: 'vm', max_jwt_exp: 1 },
            { name: '-bad-', type: 'iam' },
          ],
        },
      ],
    });
  } catch (e) {
    msg = (e as Error).message;
  }
  expect(msg).toMatch(/^invalid keyward manifest:/);
  for (const p of ['version', 'fingerprintSalt', 'authBackends.0.path', 'authBackends.0.roles.0', 'authBackends.0.roles.1.name']) expect(msg).toContain(`  ${p}:`);
});

test('secrets must be references: a plain value is refused', () => {
  const r = manifestSchema.safeParse({ ...base, authBackends: [{ path: 'c', type: 'cloud', config: { credentials: '{"private_key":"x"}' } }] });
  expect(r.success).toBe(false);
  const s = manifestSchema.safeParse({
    ...base,
    snapshotConfigs: [
      { name: 'x', storage_type: 'cloudone-store', interval: 1, path_prefix: 'p', cloudone_bucket: 'b', cloudone_region: 'r', cloudone_secret_access_key: 'plain' },
    ],
  });
  expect(s.success).toBe(false);
  expect(manifestSchema.safeParse({ ...base, authBackends: [{ path: 'c', type: 'cloud', config: { credentials: { secretRef: { env: '1BAD' } } } }] }).success).toBe(false);
  expect(
    manifestSchema.safeParse({ ...base, authBackends: [{ path: 'c', type: 'cloud', config: { credentials: { secretRef: { env: 'OK', fingerprint: 'md5:x' } } } }] }).success,
  ).toBe(false);
});

test('duplicates are refused (role names case-insensitively)', () => {
  const r = manifestSchema.safeParse({
    ...base,
    authBackends: [
      {
        path: 'c',
        type: 'cloud',
        roles: [
          { name: 'Web', type: 'iam', bound_service_accounts: 'a' },
          { name: 'web', type: 'iam', bound_service_accounts: 'a' },
        ],
      },
    ],
    snapshotConfigs: [
      { name: 'd', storage_type: 'local', interval: 1, path_prefix: '/x', local_max_space: 1 },
      { name: 'd', storage_type: 'local', interval: 1, path_prefix: '/y', local_max_space: 1 },
    ],
  });
  expect(r.success).toBe(false);
  expect(r.error!.issues.map((i) => i.message)).toEqual(['duplicate role name "web"', 'duplicate snapshot config name "d"']);
});

test('fingerprints are keyed: stable per salt, different across salts, never the plain hash', () => {
  const a = fingerprintSecret('salt-a', 'secret');
  expect(a).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(fingerprintSecret('salt-a', 'secret')).toBe(a);
  expect(fingerprintSecret('salt-b', 'secret')).not.toBe(a);
  expect(fingerprintSecret('salt-a', 'secret2')).not.toBe(a);
  const plain = require('node:crypto').createHash('sha256').update('secret').digest('hex');
  expect(a).not.toContain(plain);
});

test('no token field exists in the server block', () => {
  expect(manifestSchema.safeParse({ ...base, server: { address: 'http://x:1', token: 't' } }).success).toBe(false);
});

test('null members count as absent (Terraform jsonencode output)', () => {
  const m = parseManifest({
    ...base,
    stack: null,
    authBackends: [{ path: 'c', type: 'cloud', description: null, config: null, roles: [{ name: 'r', type: 'iam', bound_service_accounts: 'a', token_ttl: null }] }],
  });
  expect(m.authBackends[0].config).toBeUndefined();
  expect(m.authBackends[0].roles[0]).toEqual({ name: 'r', type: 'iam', bound_service_accounts: 'a' });
});
