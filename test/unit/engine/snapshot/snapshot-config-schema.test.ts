// Write validation, read redaction and canonical forms of src/schema/snapshot-config.ts and
// snapshot-validate.ts (kept here: this directory is the snapshot engineer's test tree).

import { ApiError } from '../../../../src/schema/errors';
import { canonicalSnapshotConfig, normalizeSnapshotConfigRead, redactSnapshotConfig, validateSnapshotConfigWrite } from '../../../../src/schema/snapshot-validate';

function problems(body: Record<string, unknown>, existing?: Parameters<typeof validateSnapshotConfigWrite>[1]): string[] {
  try {
    validateSnapshotConfigWrite(body, existing);
  } catch (e) {
    expect(ApiError.isApiError(e)).toBe(true);
    expect((e as ApiError).status).toBe(400);
    return (e as ApiError).errors;
  }
  throw new Error('expected a validation failure');
}

const local = { storage_type: 'local', interval: '1h', path_prefix: '/tmp/snaps', local_max_space: 1000 };

describe('snapshot config write validation', () => {
  it('fills defaults and stores interval in seconds', () => {
    const { config } = validateSnapshotConfigWrite(local);
    expect(config).toEqual({
      storage_type: 'local',
      interval: 3600,
      retain: 1,
      path_prefix: '/tmp/snaps',
      file_prefix: 'vault-snapshot',
      autoload_enabled: false,
      local_max_space: 1000,
    });
  });

  it.each([
    ['86400', 86400],
    [90, 90],
    ['1h30m', 5400],
    ['1.5h', 5400],
    ['2d', 172800],
    ['90s', 90],
  ])('accepts interval %p as %p seconds', (input, seconds) => {
    expect(validateSnapshotConfigWrite({ ...local, interval: input }).config.interval).toBe(seconds);
  });

  it.each([0, '0s', 'soon', -5, true])('refuses interval %p', (input) => {
    expect(problems({ ...local, interval: input })).toEqual(['interval must be a positive number of seconds or a duration string']);
  });

  it('reports every problem at once', () => {
    expect(problems({ storage_type: 'local', retain: 0 })).toEqual([
      'interval is required',
      'retain must be a positive integer (at least 1)',
      'path_prefix is required for storage_type=local',
      'local_max_space is required for storage_type=local (a positive number of bytes)',
    ]);
  });

  it('refuses an unknown or missing storage_type', () => {
    const msg = 'storage_type must be one of local, cloudone-store, cloudtwo-store, cloudthree-store';
    expect(problems({ interval: 60 })).toEqual([msg]);
    expect(problems({ ...local, storage_type: 'tape' })).toEqual([msg]);
  });

  it("refuses another storage type's fields by name", () => {
    expect(problems({ ...local, cloudone_bucket: 'b', cloudtwo_endpoint: 'x' })).toEqual([
      'cloudone_bucket is not valid for storage_type=local (it belongs to cloudone-store)',
      'cloudtwo_endpoint is not valid for storage_type=local (it belongs to cloudtwo-store)',
    ]);
  });

  it('requires the trailing slash for cloudtwo and cloudthree on the engine only (Vault accepts it), not for cloudone', () => {
    const note = " (a rule of keyward's embedded engine; Vault accepts it)";
    const engine = (body: Record<string, unknown>) => problems(body, { engineRules: true });
    expect(validateSnapshotConfigWrite({ storage_type: 'cloudtwo-store', interval: 60, path_prefix: 'backups', cloudtwo_bucket: 'b' }).config.path_prefix).toBe('backups');
    expect(engine({ storage_type: 'cloudtwo-store', interval: 60, path_prefix: 'backups', cloudtwo_bucket: 'b' })).toEqual([
      `path_prefix must end with "/" for storage_type=cloudtwo-store (got "backups")${note}`,
    ]);
    expect(
      engine({
        storage_type: 'cloudthree-store',
        interval: 60,
        path_prefix: 'backups',
        cloudthree_container_name: 'c',
        cloudthree_account_name: 'a',
        cloudthree_account_key: 'k',
      }),
    ).toEqual([`path_prefix must end with "/" for storage_type=cloudthree-store (got "backups")${note}`]);
    const ok = validateSnapshotConfigWrite({ storage_type: 'cloudone-store', interval: 60, path_prefix: 'backups', cloudone_bucket: 'b', cloudone_region: 'r' });
    expect(ok.config.path_prefix).toBe('backups');
  });

  it('checks the cloudone cross-field rules', () => {
    const base = { storage_type: 'cloudone-store', interval: 60, path_prefix: 'p', cloudone_bucket: 'b', cloudone_region: 'r' };
    expect(problems({ ...base, cloudone_enable_kms: true, cloudone_server_side_encryption: 'true' })).toEqual([
      'cloudone_enable_kms and cloudone_server_side_encryption are mutually exclusive',
    ]);
    expect(problems({ ...base, cloudone_access_key_id: 'AK' })).toEqual(['cloudone_access_key_id and cloudone_secret_access_key must be set together']);
    expect(problems({ storage_type: 'cloudone-store', interval: 60, path_prefix: 'p' })).toEqual([
      'cloudone_bucket is required for storage_type=cloudone-store',
      'cloudone_region is required for storage_type=cloudone-store',
    ]);
  });

  it('checks the service account key is a JSON object without echoing it', () => {
    const errs = problems({ storage_type: 'cloudtwo-store', interval: 60, path_prefix: 'p/', cloudtwo_bucket: 'b', cloudtwo_service_account_key: 'not-json-SECRET' });
    expect(errs).toEqual(['cloudtwo_service_account_key must be a JSON object']);
    const coerce = problems({ storage_type: 'cloudtwo-store', interval: 60, path_prefix: 'p/', cloudtwo_bucket: 'b', cloudtwo_service_account_key: { a: 'SECRET' } });
    expect(coerce.join()).not.toContain('SECRET');
  });

  it('accepts loose typing (strings for integers and booleans)', () => {
    const { config } = validateSnapshotConfigWrite({ ...local, retain: '7', local_max_space: '262144000' });
    expect(config.retain).toBe(7);
    expect(config.local_max_space).toBe(262144000);
  });

  it('merges an update with the stored config and refuses a storage_type change', () => {
    const stored = validateSnapshotConfigWrite({
      storage_type: 'cloudone-store',
      interval: 60,
      path_prefix: 'p',
      cloudone_bucket: 'b',
      cloudone_region: 'r',
      cloudone_access_key_id: 'AK',
      cloudone_secret_access_key: 'SK',
    }).config;
    const updated = validateSnapshotConfigWrite({ retain: 3 }, { existing: stored }).config;
    expect(updated.retain).toBe(3);
    expect(updated.cloudone_secret_access_key).toBe('SK');
    expect(problems({ storage_type: 'local' }, { existing: stored })).toEqual(['storage_type cannot be changed; delete and recreate the configuration']);
  });

  it('reports unknown fields separately (the route warns)', () => {
    expect(validateSnapshotConfigWrite({ ...local, bogus: 1 }).unknown).toEqual(['bogus']);
  });
});

describe('snapshot config read and canonical forms', () => {
  const cloud = {
    storage_type: 'cloudone-store',
    interval: '24h',
    path_prefix: 'prod/raft',
    cloudone_bucket: 'b',
    cloudone_region: 'eu-west-1',
    cloudone_access_key_id: 'AK',
    cloudone_secret_access_key: 'SK',
    cloudone_session_token: 'ST',
  };

  it('omits secret keys entirely on read and keeps identifiers', () => {
    const read = redactSnapshotConfig(validateSnapshotConfigWrite(cloud).config);
    expect(read).not.toHaveProperty('cloudone_secret_access_key');
    expect(read).not.toHaveProperty('cloudone_session_token');
    expect(read).toMatchObject({ interval: 86400, cloudone_access_key_id: 'AK', cloudone_endpoint: '', cloudone_disable_tls: false, file_prefix: 'vault-snapshot', retain: 1 });
  });

  it('canonical desired state equals the normalized live read', () => {
    const desired = canonicalSnapshotConfig({ ...cloud, cloudone_secret_access_key: undefined, cloudone_session_token: undefined, cloudone_access_key_id: 'AK' });
    const live = normalizeSnapshotConfigRead({ ...redactSnapshotConfig(validateSnapshotConfigWrite(cloud).config), extra: 1 });
    expect(desired).toEqual(live);
  });
});
