// The rename tables, every field and enum value in both directions, plus redaction on read,
// error texts and the keyward identity.

import { translatorFor } from '../../../../src/client/dialect';
import { FIELD_NAMES, FIELD_VALUES, MOUNT_TYPES, type Shape } from '../../../../src/client/dialect/tables';
import { SNAPSHOT_FIELDS, STORAGE_TYPES } from '../../../../src/schema/snapshot-config';

const vault = translatorFor('vault');
const keyward = translatorFor('keyward');
const shapes = Object.keys(FIELD_NAMES) as Shape[];

// The tables written out once more by hand, from the reference documents: a typo in either is caught.
const EXPECTED: Record<string, string> = {
  vm_alias: 'gce_alias',
  vm_metadata: 'gce_metadata',
  allow_vm_inference: 'allow_gce_inference',
  cloudone_bucket: 'aws_s3_bucket',
  cloudone_region: 'aws_s3_region',
  cloudone_access_key_id: 'aws_access_key_id',
  cloudone_secret_access_key: 'aws_secret_access_key',
  cloudone_session_token: 'aws_session_token',
  cloudone_endpoint: 'aws_s3_endpoint',
  cloudone_disable_tls: 'aws_s3_disable_tls',
  cloudone_force_path_style: 'aws_s3_force_path_style',
  cloudone_enable_kms: 'aws_s3_enable_kms',
  cloudone_server_side_encryption: 'aws_s3_server_side_encryption',
  cloudone_kms_key: 'aws_s3_kms_key',
  cloudtwo_bucket: 'google_gcs_bucket',
  cloudtwo_service_account_key: 'google_service_account_key',
  cloudtwo_endpoint: 'google_endpoint',
  cloudtwo_disable_tls: 'google_disable_tls',
  cloudthree_container_name: 'azure_container_name',
  cloudthree_account_name: 'azure_account_name',
  cloudthree_account_key: 'azure_account_key',
  cloudthree_blob_environment: 'azure_blob_environment',
  cloudthree_endpoint: 'azure_endpoint',
  cloudthree_auth_mode: 'azure_auth_mode',
  cloudthree_client_id: 'azure_client_id',
};
const SECRETS = new Set(['cloudone_secret_access_key', 'cloudone_session_token', 'cloudtwo_service_account_key', 'cloudthree_account_key']);

test('the tables hold exactly the documented renames', () => {
  const all = Object.assign({}, ...shapes.map((s) => FIELD_NAMES[s]));
  expect(all).toEqual(EXPECTED);
  expect(MOUNT_TYPES).toEqual({ cloud: 'gcp' });
  expect(FIELD_VALUES['cloud-role'].type).toEqual({ iam: 'iam', vm: 'gce' });
  expect(FIELD_VALUES['snapshot-config'].storage_type).toEqual({ local: 'local', 'cloudone-store': 'aws-s3', 'cloudtwo-store': 'google-gcs', 'cloudthree-store': 'azure-blob' });
});

test('every snapshot field of the schema is either renamed or common to both dialects', () => {
  const common = new Set(['storage_type', 'interval', 'retain', 'path_prefix', 'file_prefix', 'autoload_enabled', 'local_max_space']);
  for (const f of SNAPSHOT_FIELDS) expect(common.has(f.name) || f.name in FIELD_NAMES['snapshot-config']).toBe(true);
});

describe.each(shapes)('%s', (shape) => {
  const renames = Object.entries(FIELD_NAMES[shape]);
  test.each(renames.length ? renames : [['(none)', '(none)']])('field %s <-> %s', (k, v) => {
    if (k === '(none)') return;
    expect(vault.toServer(shape, { [k]: 'x' })).toEqual({ [v]: 'x' });
    expect(vault.fieldName(shape, k)).toBe(v);
    // A secret's value never comes back from a read, in either dialect; a snapshot config says which it holds.
    if (SECRETS.has(k)) {
      const held = shape === 'snapshot-config' ? { secrets_held: [k] } : {};
      expect(vault.fromServer(shape, { [v]: 'x' })).toEqual(held);
      expect(keyward.fromServer(shape, { [k]: 'x' })).toEqual(held);
      if (shape === 'snapshot-config') expect(vault.fromServer(shape, { [v]: '' })).toEqual({ secrets_held: [] });
    } else {
      expect(vault.fromServer(shape, { [v]: 'x' })).toEqual({ [k]: 'x' });
      expect(keyward.fromServer(shape, { [k]: 'x' })).toEqual({ [k]: 'x' });
    }
    expect(keyward.toServer(shape, { [k]: 'x' })).toEqual({ [k]: 'x' });
  });
  const values = Object.entries(FIELD_VALUES[shape]).flatMap(([f, m]) => Object.entries(m).map(([k, v]) => [f, k, v] as const));
  test.each(values.length ? values : [['(none)', '', '']])('value %s=%s <-> %s', (f, k, v) => {
    if (f === '(none)') return;
    expect(vault.toServer(shape, { [f]: k })).toEqual({ [f]: v });
    expect(vault.fromServer(shape, { [f]: v })).toEqual({ [f]: k });
    expect(vault.fieldValue(shape, f, k)).toBe(v);
    expect(keyward.toServer(shape, { [f]: k })).toEqual({ [f]: k });
  });
});

test('every storage type has a Vault name', () => {
  for (const t of STORAGE_TYPES) expect(vault.fieldValue('snapshot-config', 'storage_type', t)).toMatch(/^(local|aws-s3|google-gcs|azure-blob)$/);
});

test('mount types: cloud <-> gcp, others unchanged', () => {
  expect(vault.mountTypeToServer('cloud')).toBe('gcp');
  expect(vault.mountTypeFromServer('gcp')).toBe('cloud');
  expect(vault.mountTypeFromServer('userpass')).toBe('userpass');
  expect(keyward.mountTypeToServer('cloud')).toBe('cloud');
  expect(keyward.mountTypeFromServer('gcp')).toBe('gcp');
});

test('fields outside the tables pass through, values and all', () => {
  const body = { token_ttl: 60, bound_labels: ['a:b'], iam_alias: 'role_id', identity_token_audience: 'aud', rotation_period: 3600 };
  expect(vault.toServer('cloud-role', body)).toEqual(body);
  expect(vault.fromServer('cloud-config', body)).toEqual(body);
});

test('a whole Vault snapshot read: renamed, secrets dropped', () => {
  const read = {
    storage_type: 'aws-s3',
    interval: 3600,
    aws_s3_bucket: 'b',
    aws_s3_region: 'r',
    aws_access_key_id: 'AKIA',
    aws_secret_access_key: 'SECRET-1',
    aws_session_token: 'SECRET-2',
  };
  const out = vault.fromServer('snapshot-config', read);
  expect(out).toEqual({
    storage_type: 'cloudone-store',
    interval: 3600,
    cloudone_bucket: 'b',
    cloudone_region: 'r',
    cloudone_access_key_id: 'AKIA',
    secrets_held: ['cloudone_secret_access_key', 'cloudone_session_token'],
  });
  expect(JSON.stringify(out)).not.toMatch(/SECRET/);
});

test('a cloud config read never carries credentials', () => {
  expect(vault.fromServer('cloud-config', { credentials: '{"private_key":"k"}', private_key: 'k', gce_alias: 'instance_id' })).toEqual({ vm_alias: 'instance_id' });
});

test("error texts: Vault's words become keyward's", () => {
  expect(vault.errorsFromServer(['unable to create alias: invalid GCE alias type: must be one of: instance_id, role_id'])).toEqual([
    'unable to create alias: invalid VM alias type: must be one of: instance_id, role_id',
  ]);
  expect(vault.errorsFromServer(['failed to parse gce metadata: bad'])).toEqual(['failed to parse vm metadata: bad']);
  expect(vault.errorsFromServer(['1 error occurred:\n\t* unknown fields: ["allow_gce_inference" "gce_alias"]\n\n'])).toEqual([
    '1 error occurred:\n\t* unknown fields: ["allow_vm_inference" "vm_alias"]\n\n',
  ]);
  expect(vault.errorsFromServer(["role is type 'gce', not 'iam'"])).toEqual(["role is type 'vm', not 'iam'"]);
  expect(vault.errorsFromServer(['specified aws-s3 storage without setting aws_s3_bucket'])).toEqual(['specified cloudone-store storage without setting cloudone_bucket']);
  expect(vault.errorsFromServer(['bucket my-aws-s3-bucket missing'])).toEqual(['bucket my-aws-s3-bucket missing']);
  expect(keyward.errorsFromServer(['invalid GCE alias'])).toEqual(['invalid GCE alias']);
});

describe('error texts: names and values are never rewritten from the inside', () => {
  test.each([
    ['instance "gce-prod-1" not found in zone us-central1-a', 'instance "gce-prod-1" not found in zone us-central1-a'],
    ["instance 'gce_batch.7' is not in a bound group", "instance 'gce_batch.7' is not in a bound group"],
    ['service account gce-runner@p.iam.gserviceaccount.com is not authorized', 'service account gce-runner@p.iam.gserviceaccount.com is not authorized'],
    ['bucket aws-s3.backups.example and mount auth/gce/config', 'bucket aws-s3.backups.example and mount auth/gce/config'],
    ['label gce:web on gce instance gce@p.example', 'label gce:web on vm instance gce@p.example'],
    ['instance "gce-1" of GCE role', 'instance "gce-1" of VM role'],
    ['zone "us-east1-gce" (GCE) has no aws_s3_bucket', 'zone "us-east1-gce" (VM) has no cloudone_bucket'],
    // A quoted value is someone's choice unless it follows its own field (issue 29, defect 10).
    ["can't use gce_alias with 'aws-s3'", "can't use vm_alias with 'aws-s3'"],
    ['role "gce" not found', 'role "gce" not found'],
    ['config "aws-s3" has storage_type "aws-s3"', 'config "aws-s3" has storage_type "cloudone-store"'],
    ['storage_type=aws-s3: aws_s3_region is required.', 'storage_type=cloudone-store: cloudone_region is required.'],
    ["missing required 'service_account_email' when 'identity_token_audience' is set", "missing required 'service_account_email' when 'identity_token_audience' is set"],
    ['azure_account_key is required for azure_auth_mode=shared', 'cloudthree_account_key is required for cloudthree_auth_mode=shared'],
  ])('%s', (vaultText, keywardText) => {
    expect(vault.errorsFromServer([vaultText])).toEqual([keywardText]);
  });
});

describe('serving a dialect (the snapshot agent)', () => {
  it('a Vault-named write body becomes keyward names with its secrets kept', () => {
    expect(vault.bodyFromServer('snapshot-config', { storage_type: 'aws-s3', aws_s3_bucket: 'b', aws_secret_access_key: 'S', interval: '1h' })).toEqual({
      storage_type: 'cloudone-store',
      cloudone_bucket: 'b',
      cloudone_secret_access_key: 'S',
      interval: '1h',
    });
    expect(keyward.bodyFromServer('snapshot-config', { cloudone_bucket: 'b' })).toEqual({ cloudone_bucket: 'b' });
  });

  it("keyward's error texts in Vault's names, whole words only", () => {
    expect(vault.errorsToServer(['cloudone_bucket is required for storage_type=cloudone-store', 'path_prefix "cloudone_bucket-x" is fine'])).toEqual([
      'aws_s3_bucket is required for storage_type=aws-s3',
      'path_prefix "cloudone_bucket-x" is fine',
    ]);
    expect(keyward.errorsToServer(['cloudone_bucket is required'])).toEqual(['cloudone_bucket is required']);
  });
});

describe('the cloud plugin type name setting', () => {
  it('OpenBao: cloud mounts are created with, and recognised by, the registered plugin name', () => {
    const bao = translatorFor('vault', { cloudPlugin: 'vault-plugin-auth-gcp' });
    expect(bao.mountTypeToServer('cloud')).toBe('vault-plugin-auth-gcp');
    expect(bao.mountTypeFromServer('vault-plugin-auth-gcp')).toBe('cloud');
    // A mount made under Vault's default name still reads as cloud: setting the name never turns
    // an existing mount into a replacement in the plan.
    expect(bao.mountTypeFromServer('gcp')).toBe('cloud');
    expect(bao.mountTypeToServer('approle')).toBe('approle');
  });

  it('defaults: gcp on Vault, cloud on the engine; the default name changes nothing', () => {
    expect(translatorFor('vault', {}).mountTypeToServer('cloud')).toBe('gcp');
    expect(translatorFor('vault', { cloudPlugin: 'gcp' })).toBe(vault);
    expect(translatorFor('keyward', { cloudPlugin: 'custom-cloud' }).mountTypeToServer('cloud')).toBe('custom-cloud');
  });
});
