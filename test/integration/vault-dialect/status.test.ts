// `keyward status` against the Vault contract server: Vault Enterprise's status shape
// (sys/storage/raft/snapshot-auto/status/:name, RFC 3339 times with the server's offset, no
// consecutive_errors), rows in keyward's names, a config that never ran shown as "-" (Vault answers
// blank strings where the engine leaves the fields out), no secret printed although the config reads
// return them, and a clear edition error on a community Vault.

import { startVaultContract } from '../../support/vault-contract/server';
import { contractCli } from './cli-session';
import { leakedSecrets, SECRETS } from './stack';

const cli = contractCli();
const keyward = cli.keyward;

const raw = cli.post;

test('status rows from Vault Enterprise: keyward names, Vault times as given, never-run configs as "-"', async () => {
  await raw('sys/storage/raft/snapshot-auto/config/hourly', { storage_type: 'local', interval: '1h', path_prefix: '/opt/vault/snaps', local_max_space: 100000, retain: 5 });
  await raw('sys/storage/raft/snapshot-auto/config/offsite', {
    storage_type: 'aws-s3',
    interval: 86400,
    path_prefix: 'raft/',
    aws_s3_bucket: 'b',
    aws_s3_region: 'r',
    aws_access_key_id: 'AK',
    aws_secret_access_key: SECRETS.S3_SECRET,
  });
  await raw('sys/storage/raft/snapshot-auto/config/blobs', {
    storage_type: 'azure-blob',
    interval: '6h',
    path_prefix: 'raft/',
    azure_container_name: 'c',
    azure_account_name: 'acct',
    azure_account_key: SECRETS.AZ_KEY,
    azure_auth_mode: 'shared',
  });
  cli.vault.statuses.set('hourly', {
    last_snapshot_start: '2025-08-29T17:41:54+02:00',
    last_snapshot_end: '2025-08-29T17:41:55+02:00',
    last_snapshot_error: '',
    last_snapshot_url: 'file:///opt/vault/snaps/vault-snapshot-1756482114000000000.snap',
    snapshot_start: '2025-08-29T18:41:54+02:00',
    snapshot_url: 'file:///opt/vault/snaps/vault-snapshot-1756485714000000000.snap',
    next_snapshot_start: '2025-08-29T18:41:54+02:00',
  });
  cli.vault.statuses.set('offsite', {
    last_snapshot_start: '2025-08-29T17:00:00+02:00',
    last_snapshot_end: '2025-08-29T17:00:01+02:00',
    last_snapshot_error: 'AccessDenied: Access Denied (status 403)',
    last_snapshot_url: '',
    snapshot_start: '2025-08-29T17:00:00+02:00',
    snapshot_url: '',
  });

  const json = await keyward('status', '--json');
  expect(json.code).toBe(0);
  const rows = (JSON.parse(json.out) as { snapshots: Array<Record<string, unknown>> }).snapshots;
  expect(rows).toEqual([
    {
      name: 'blobs',
      storage_type: 'cloudthree-store',
      interval: 21600,
      retain: 1,
      last_snapshot_end: null,
      next_snapshot_start: null,
      consecutive_errors: null,
      last_snapshot_error: '',
      last_snapshot_url: '',
    },
    {
      name: 'hourly',
      storage_type: 'local',
      interval: 3600,
      retain: 5,
      last_snapshot_end: '2025-08-29T17:41:55+02:00',
      next_snapshot_start: '2025-08-29T18:41:54+02:00',
      consecutive_errors: null,
      last_snapshot_error: '',
      last_snapshot_url: 'file:///opt/vault/snaps/vault-snapshot-1756482114000000000.snap',
    },
    {
      name: 'offsite',
      storage_type: 'cloudone-store',
      interval: 86400,
      retain: 1,
      last_snapshot_end: '2025-08-29T17:00:01+02:00',
      next_snapshot_start: null,
      consecutive_errors: null,
      last_snapshot_error: 'AccessDenied: Access Denied (status 403)',
      last_snapshot_url: '',
    },
  ]);

  const table = await keyward('status', '--dialect', 'vault');
  expect(table.code).toBe(0);
  const lines = table.out.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^NAME\s+TYPE\s+LAST SNAPSHOT\s+NEXT SNAPSHOT\s+ERRORS\s+LAST ERROR\s+URL$/);
  // Vault sends no consecutive_errors: "-" before any run, 0 after a success, ">=1" after a failure.
  expect(lines[1].split(/\s{2,}/)).toEqual(['blobs', 'cloudthree-store', '-', '-', '-', '-', '-']);
  expect(lines[2].split(/\s{2,}/)).toEqual([
    'hourly',
    'local',
    '2025-08-29T17:41:55+02:00',
    '2025-08-29T18:41:54+02:00',
    '0',
    '-',
    'file:///opt/vault/snaps/vault-snapshot-1756482114000000000.snap',
  ]);
  expect(lines[3].split(/\s{2,}/)).toEqual(['offsite', 'cloudone-store', '2025-08-29T17:00:01+02:00', '-', '>=1', 'AccessDenied: Access Denied (status 403)', '-']);

  // Vault's own paths were read, in the root namespace; nothing else was asked of it.
  expect(
    cli.vault.requests
      .filter((r) => r.path.includes('/status/'))
      .map((r) => r.path)
      .sort(),
  ).toEqual(['blobs', 'blobs', 'hourly', 'hourly', 'offsite', 'offsite'].map((n) => `/v1/sys/storage/raft/snapshot-auto/status/${n}`));
  expect(cli.vault.problems).toEqual([]);
  expect(leakedSecrets(json.out + table.out)).toEqual([]);
});

test('a failing config on Vault never shows "0" errors; next start, autoload and its loading error are shown', async () => {
  cli.vault.snapshots.clear();
  cli.vault.statuses.clear();
  await raw('sys/storage/raft/snapshot-auto/config/offsite', {
    storage_type: 'aws-s3',
    interval: 3600,
    path_prefix: 'raft/',
    aws_s3_bucket: 'b',
    aws_s3_region: 'r',
    aws_access_key_id: 'AK',
    aws_secret_access_key: SECRETS.S3_SECRET,
    autoload_enabled: true,
  });
  cli.vault.failSnapshot('offsite', 'NoSuchBucket: The specified bucket does not exist', '2026-03-01T10:00:00-05:00');
  cli.vault.statuses.set('offsite', { ...cli.vault.statuses.get('offsite')!, next_snapshot_start: '2026-03-01T11:00:00-05:00' });
  cli.vault.failLoading('offsite', 'snapshot vault-snapshot-17.snap: checksum mismatch');

  const json = await keyward('status', '--json');
  const [row] = (JSON.parse(json.out) as { snapshots: Array<Record<string, unknown>> }).snapshots;
  expect(row).toMatchObject({
    name: 'offsite',
    consecutive_errors: null,
    last_snapshot_error: 'NoSuchBucket: The specified bucket does not exist',
    next_snapshot_start: '2026-03-01T11:00:00-05:00',
    loaded_snapshot_status: 'failed',
    loading_error: 'snapshot vault-snapshot-17.snap: checksum mismatch',
  });
  const table = await keyward('status');
  const lines = table.out.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^NAME\s+TYPE\s+LAST SNAPSHOT\s+NEXT SNAPSHOT\s+ERRORS\s+LAST ERROR\s+AUTOLOAD\s+URL$/);
  expect(lines[1].split(/\s{2,}/)).toEqual([
    'offsite',
    'cloudone-store',
    '2026-03-01T10:00:00-05:00',
    '2026-03-01T11:00:00-05:00',
    '>=1',
    'NoSuchBucket: The specified bucket does not exist',
    '(failed): snapshot vault-snapshot-17.snap: checksum mismatch',
    '-',
  ]);
  expect(table.out).not.toMatch(/\s0\s/);
  expect(leakedSecrets(json.out + table.out)).toEqual([]);
});

test('status on a community Vault: a clear error naming the edition', async () => {
  const oss = await startVaultContract({ enterprise: false });
  try {
    const r = await keyward('status', '--address', oss.url);
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(/automated snapshots .* needs Vault Enterprise/);
    expect(r.out).toContain('community edition (Vault community or OpenBao) 1.19.2');
    expect(oss.problems).toEqual([]);
  } finally {
    await oss.close();
  }
});
