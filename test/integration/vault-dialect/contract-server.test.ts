// The Vault contract server itself: the behaviours keyward must not assume away (replace on
// update, google_endpoint read as false, standbys answering 307, Vault's status shape) and Vault's
// validation of the newer fields, over raw HTTP in Vault's names.

import { CONTRACT_TOKEN, startVaultContract, type VaultContract } from '../../support/vault-contract/server';

let vault: VaultContract;
beforeAll(async () => {
  vault = await startVaultContract();
});
afterAll(() => vault.close());
afterEach(() => {
  vault.snapshots.clear();
  vault.snapshotOptions.update = 'replace';
});

/** A parsed JSON body, read field by field in the assertions. */
type Json = ReturnType<typeof JSON.parse>;

async function call(method: string, path: string, body?: unknown, base = vault.url): Promise<{ status: number; body: Json; location: string | null }> {
  const res = await fetch(`${base}/v1/${path}`, {
    method,
    headers: { 'x-vault-token': CONTRACT_TOKEN },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: 'manual',
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, location: res.headers.get('location') };
}

const S3 = {
  storage_type: 'aws-s3',
  interval: 3600,
  retain: 3,
  path_prefix: 'raft',
  aws_s3_bucket: 'b',
  aws_s3_region: 'r',
  aws_access_key_id: 'AK',
  aws_secret_access_key: 'SECRET-1',
};
const snap = (n: string) => `sys/storage/raft/snapshot-auto/config/${n}`;

describe('snapshot config updates', () => {
  test('replace (default): a one-field update without the secret drops the stored secret', async () => {
    expect((await call('POST', snap('s3'), S3)).status).toBe(204);
    expect((await call('POST', snap('s3'), { storage_type: 'aws-s3', interval: 3600, retain: 5, path_prefix: 'raft', aws_s3_bucket: 'b', aws_s3_region: 'r' })).status).toBe(204);
    const read = (await call('GET', snap('s3'))).body.data;
    expect(read).toMatchObject({ retain: 5, aws_secret_access_key: '', aws_access_key_id: '' });
  });

  test('replace: an update that omits an optional field resets it', async () => {
    await call('POST', snap('s3'), { ...S3, file_prefix: 'kw', aws_s3_force_path_style: true });
    await call('POST', snap('s3'), S3);
    expect((await call('GET', snap('s3'))).body.data).toMatchObject({ file_prefix: 'vault-snapshot', aws_s3_force_path_style: false, aws_secret_access_key: 'SECRET-1' });
  });

  test('replace: storage_type is required on every write', async () => {
    await call('POST', snap('s3'), S3);
    expect(await call('POST', snap('s3'), { retain: 4 })).toMatchObject({ status: 400, body: { errors: ['storage_type is required'] } });
  });

  test('merge (option): the same one-field update keeps the secret', async () => {
    vault.snapshotOptions.update = 'merge';
    await call('POST', snap('s3'), S3);
    expect((await call('POST', snap('s3'), { retain: 5 })).status).toBe(204);
    expect((await call('GET', snap('s3'))).body.data).toMatchObject({ retain: 5, aws_secret_access_key: 'SECRET-1' });
  });

  test('google_endpoint reads back as the boolean false when unset, the string when set', async () => {
    await call('POST', snap('gcs'), { storage_type: 'google-gcs', interval: 60, path_prefix: 'p', google_gcs_bucket: 'g' });
    expect((await call('GET', snap('gcs'))).body.data.google_endpoint).toBe(false);
    await call('POST', snap('gcs'), { storage_type: 'google-gcs', interval: 60, path_prefix: 'p', google_gcs_bucket: 'g', google_endpoint: 'http://gcs.local' });
    expect((await call('GET', snap('gcs'))).body.data.google_endpoint).toBe('http://gcs.local');
  });

  test("values Vault accepts: path_prefix without '/', '/' in file_prefix, a 2-year interval, any blob environment", async () => {
    const r = await call('POST', snap('az'), {
      storage_type: 'azure-blob',
      interval: 2 * 366 * 86400,
      path_prefix: 'path/in/bucket',
      file_prefix: 'a/b',
      azure_container_name: 'c',
      azure_account_name: 'n',
      azure_account_key: 'k',
      azure_blob_environment: 'azure-env',
      azure_auth_mode: 'shared',
    });
    expect(r.status).toBe(204);
    expect(vault.problems).toEqual([]);
  });
});

describe('autoload and Azure auth modes', () => {
  const AZ = { storage_type: 'azure-blob', interval: 60, path_prefix: 'p/', azure_container_name: 'c', azure_account_name: 'n' };
  test('autoload_enabled: refused for local storage and for a second config', async () => {
    expect(await call('POST', snap('l'), { storage_type: 'local', interval: 60, path_prefix: '/tmp/x', local_max_space: 10, autoload_enabled: true })).toMatchObject({
      status: 400,
    });
    expect((await call('POST', snap('a'), { ...S3, autoload_enabled: true })).status).toBe(204);
    const second = await call('POST', snap('b'), { ...S3, autoload_enabled: true });
    expect(second.status).toBe(400);
    expect(second.body.errors[0]).toContain('"a"');
    // The holder may be rewritten with autoload on.
    expect((await call('POST', snap('a'), { ...S3, retain: 2, autoload_enabled: true })).status).toBe(204);
  });

  test('azure_auth_mode: required in the request (harsh default); shared needs the key, managed the client id, environment neither; others refused', async () => {
    expect((await call('POST', snap('z'), AZ)).body.errors).toEqual(['azure_auth_mode is required for storage_type=azure-blob']);
    expect((await call('POST', snap('z'), { ...AZ, azure_auth_mode: 'shared' })).body.errors).toEqual(['azure_account_key is required for azure_auth_mode=shared']);
    expect((await call('POST', snap('z'), { ...AZ, azure_auth_mode: 'managed' })).body.errors).toEqual(['azure_client_id is required for azure_auth_mode=managed']);
    expect((await call('POST', snap('z'), { ...AZ, azure_auth_mode: 'managed', azure_client_id: 'cid' })).status).toBe(204);
    expect((await call('POST', snap('z'), { ...AZ, azure_auth_mode: 'environment' })).status).toBe(204);
    const { azure_account_name: _name, ...noName } = AZ;
    expect((await call('POST', snap('z'), { ...noName, azure_auth_mode: 'environment' })).status).toBe(204);
    expect((await call('POST', snap('z'), { ...noName, azure_auth_mode: 'managed', azure_client_id: 'cid' })).body.errors).toEqual([
      'azure_account_name is required for azure_auth_mode=managed',
    ]);
    expect((await call('POST', snap('z'), { ...AZ, azure_auth_mode: 'sas' })).body.errors[0]).toMatch(/^azure_auth_mode must be one of/);
  });
});

test("status: Vault's shape without consecutive_errors; a failing config and autoload's fields", async () => {
  await call('POST', snap('a'), { ...S3, autoload_enabled: true });
  await call('POST', snap('s'), S3);
  vault.failSnapshot('s', 'AccessDenied');
  vault.failLoading('a', 'snapshot not found');
  const s = (await call('GET', 'sys/storage/raft/snapshot-auto/status/s')).body.data;
  expect(s).not.toHaveProperty('consecutive_errors');
  expect(s).not.toHaveProperty('loading_error');
  expect(s.last_snapshot_error).toBe('AccessDenied');
  const a = (await call('GET', 'sys/storage/raft/snapshot-auto/status/a')).body.data;
  expect(a).toMatchObject({ loading_error: 'snapshot not found', loaded_snapshot_status: 'failed', loaded_snapshot_id: '' });
  vault.statuses.clear();
});

describe('standby nodes', () => {
  test.each([
    ['standby', 429, false],
    ['perfstandby', 473, true],
  ] as const)('%s: health %i, every other request a 307 to the active node', async (kind, code, perf) => {
    const node = await vault.standby(kind);
    const h = await call('GET', 'sys/health', undefined, node.url);
    expect(h.status).toBe(code);
    expect(h.body).toMatchObject({ standby: true, performance_standby: perf, sealed: false });
    expect((await call('GET', 'sys/health?standbyok=true&perfstandbyok=true', undefined, node.url)).status).toBe(200);
    const r = await call('POST', 'sys/auth/x', { type: 'gcp' }, node.url);
    expect(r.status).toBe(307);
    expect(r.location).toBe(`${vault.url}/v1/sys/auth/x`);
    expect(vault.mounts.has('x')).toBe(false);
    const l = await call('GET', 'sys/storage/raft/snapshot-auto/config?list=true', undefined, node.url);
    expect(l.location).toBe(`${vault.url}/v1/sys/storage/raft/snapshot-auto/config?list=true`);
  });
});

describe('GCP auth config: workload identity federation and root rotation (path_config.go, sdk helpers)', () => {
  const creds = JSON.stringify({ type: 'service_account', private_key_id: 'k1', client_email: 'vault@p.iam.gserviceaccount.com', project_id: 'p' });
  beforeAll(async () => {
    await call('POST', 'sys/auth/g', { type: 'gcp' });
  });
  afterAll(() => call('DELETE', 'sys/auth/g'));
  test('WIF: audience needs service_account_email and excludes credentials', async () => {
    expect((await call('POST', 'auth/g/config', { identity_token_audience: 'aud' })).body.errors).toEqual([
      "missing required 'service_account_email' when 'identity_token_audience' is set",
    ]);
    await call('POST', 'auth/g/config', { credentials: creds });
    expect((await call('POST', 'auth/g/config', { identity_token_audience: 'aud', service_account_email: 'sa@p.iam.gserviceaccount.com' })).body.errors).toEqual([
      "only one of 'credentials' or 'identity_token_audience' can be set",
    ]);
    expect(
      (await call('POST', 'auth/g/config', { credentials: '', identity_token_audience: 'aud', service_account_email: 'sa@p.iam.gserviceaccount.com', identity_token_ttl: '2h' }))
        .status,
    ).toBe(204);
    expect((await call('GET', 'auth/g/config')).body.data).toMatchObject({
      identity_token_audience: 'aud',
      identity_token_ttl: 7200,
      service_account_email: 'sa@p.iam.gserviceaccount.com',
    });
    await call('POST', 'auth/g/config', { identity_token_audience: '', service_account_email: '' });
  });

  test('rotation: schedule xor period, window needs a schedule in the same request; read as numbers', async () => {
    expect((await call('POST', 'auth/g/config', { rotation_schedule: '0 * * * SAT', rotation_period: 3600 })).body.errors[0]).toMatch(
      /^mutually exclusive fields rotation_schedule and rotation_period/,
    );
    expect((await call('POST', 'auth/g/config', { rotation_window: 3600 })).body.errors).toEqual(['cannot use rotation_window without rotation_schedule']);
    expect((await call('POST', 'auth/g/config', { rotation_schedule: 'every day' })).body.errors[0]).toMatch(/^failed to parse provided rotation_schedule/);
    expect((await call('POST', 'auth/g/config', { rotation_schedule: '0 * * * SAT', rotation_window: '1h' })).status).toBe(204);
    expect((await call('GET', 'auth/g/config')).body.data).toMatchObject({
      rotation_schedule: '0 * * * SAT',
      rotation_window: 3600,
      rotation_period: 0,
      disable_automated_rotation: false,
    });
  });

  test('rotate-root and a scheduled rotation change private_key_id', async () => {
    await call('POST', 'auth/g/config', { credentials: creds });
    const r = await call('POST', 'auth/g/config/rotate-root', {});
    expect(r.body.data.private_key_id).toMatch(/^[0-9a-f]{32}$/);
    expect((await call('GET', 'auth/g/config')).body.data.private_key_id).toBe(r.body.data.private_key_id);
    const next = vault.rotateKey('g');
    expect((await call('GET', 'auth/g/config')).body.data.private_key_id).toBe(next);
  });

  test("'*' beside other accounts: refused on an iam role, kept on a gce role", async () => {
    expect((await call('POST', 'auth/g/role/i', { type: 'iam', bound_service_accounts: ['*', 'a@p.iam.gserviceaccount.com'] })).status).toBe(400);
    expect((await call('POST', 'auth/g/role/v', { type: 'gce', bound_service_accounts: ['*', 'a@p.iam.gserviceaccount.com'], bound_projects: ['p'] })).status).toBe(200);
  });
});

describe('mounts: local, tune, remount', () => {
  test('enable with local and config; sys/auth lists them; tune read reports effective TTLs', async () => {
    expect((await call('POST', 'sys/auth/m1', { type: 'gcp', local: true, config: { default_lease_ttl: '1h', token_type: 'batch' } })).status).toBe(204);
    const list = (await call('GET', 'sys/auth')).body.data['m1/'];
    expect(list).toMatchObject({ local: true, config: { default_lease_ttl: 3600, max_lease_ttl: 0, token_type: 'batch' } });
    expect(list.config).not.toHaveProperty('listing_visibility');
    expect((await call('POST', 'sys/auth/m1/tune', { max_lease_ttl: 7200, listing_visibility: 'unauth' })).status).toBe(204);
    expect((await call('GET', 'sys/auth')).body.data['m1/'].config).toMatchObject({ default_lease_ttl: 3600, max_lease_ttl: 7200, listing_visibility: 'unauth' });
    expect((await call('POST', 'sys/auth/m1/tune', { default_lease_ttl: 'system' })).status).toBe(204);
    expect((await call('GET', 'sys/auth/m1/tune')).body.data).toMatchObject({ default_lease_ttl: 2764800, max_lease_ttl: 7200, token_type: 'batch' });
    expect((await call('POST', 'sys/auth/m1/tune', { token_type: 'weird' })).status).toBe(400);
    expect((await call('POST', 'sys/auth/m1/tune', { listing_visibility: 'public' })).status).toBe(400);
    expect((await call('POST', 'sys/auth/m1/tune', { default_lease_ttl: 9000 })).status).toBe(400);
    await call('DELETE', 'sys/auth/m1');
  });

  test('remount keeps accessor, config and roles; status polls in-progress then success', async () => {
    await call('POST', 'sys/auth/from', { type: 'gcp' });
    await call('POST', 'auth/from/role/r', { type: 'iam', bound_service_accounts: ['a@p.iam.gserviceaccount.com'] });
    const accessor = vault.mounts.get('from')!.accessor;
    const r = await call('POST', 'sys/remount', { from: 'auth/from', to: 'auth/to' });
    const id = r.body.data.migration_id as string;
    expect((await call('GET', `sys/remount/status/${id}`)).body.data.migration_info).toMatchObject({ status: 'in-progress', source_mount: 'auth/from/', target_mount: 'auth/to/' });
    expect((await call('GET', `sys/remount/status/${id}`)).body.data.migration_info.status).toBe('success');
    expect(vault.mounts.get('to')!.accessor).toBe(accessor);
    expect((await call('GET', 'auth/to/role/r')).status).toBe(200);
    expect((await call('GET', 'auth/from/role/r')).status).toBe(404);
    expect((await call('POST', 'sys/remount', { from: 'auth/nope', to: 'auth/x' })).status).toBe(400);
    vault.remountOptions.failNext = true;
    const f = await call('POST', 'sys/remount', { from: 'auth/to', to: 'auth/elsewhere' });
    await call('GET', `sys/remount/status/${f.body.data.migration_id}`);
    expect((await call('GET', `sys/remount/status/${f.body.data.migration_id}`)).body.data.migration_info.status).toBe('failure');
    expect(vault.mounts.has('to')).toBe(true);
  });

  test('an unknown migration id is a 404 with no message (Vault: handleRemountStatusCheck returns nil; OpenBao 2.7.2 measured)', async () => {
    const r = await call('GET', 'sys/remount/status/00000000-0000-0000-0000-000000000000');
    expect({ status: r.status, body: r.body }).toEqual({ status: 404, body: { errors: [] } });
    // A migration the node forgot (a leader change or a restart after the POST) reads the same.
    await call('POST', 'sys/auth/forgot', { type: 'gcp' });
    vault.remountOptions.forgetNext = true;
    const f = await call('POST', 'sys/remount', { from: 'auth/forgot', to: 'auth/remembered' });
    expect((await call('GET', `sys/remount/status/${f.body.data.migration_id}`)).status).toBe(404);
    expect(vault.mounts.has('remembered')).toBe(true);
  });
});

test('GET sys/auth/:path reads one mount; an unknown one is a 400', async () => {
  await call('POST', 'sys/auth/one', { type: 'gcp', local: true });
  expect((await call('GET', 'sys/auth/one')).body.data).toMatchObject({ type: 'gcp', local: true, config: { token_type: 'default-service' } });
  expect((await call('GET', 'sys/auth/none')).status).toBe(400);
  await call('DELETE', 'sys/auth/one');
});
