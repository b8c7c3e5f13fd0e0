// The keyward command (plan/apply with a manifest) against Vault Enterprise as the contract server's
// harsh defaults give it (snapshot updates replace, google_endpoint reads false): every storage type
// settles; a one-field change keeps every stored secret; a key Vault rotated is neither drift nor sent
// again; WIF, rotation, mount tune and `local`, autoload and Azure managed identity round-trip and
// their drift is corrected; plan and apply work through a standby (307); a mount moves (movedFrom).

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ManifestInput } from '../../../src/schema/manifest';
import { contractCli } from './cli-session';
import { manifest } from '../reconcile/helpers';
import { leakedSecrets, SECRETS } from './stack';

const AUDIENCE = '//iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/vault/providers/prod';
const ref = (env: string) => ({ secretRef: { env } });

interface Knobs {
  path?: string;
  movedFrom?: string;
  retain?: number;
  tokenTtl?: string;
}

function enterprise(k: Knobs = {}): ManifestInput {
  return manifest({
    authBackends: [
      {
        path: k.path ?? 'cloud',
        ...(k.movedFrom ? { movedFrom: k.movedFrom } : {}),
        type: 'cloud',
        description: 'workloads',
        default_lease_ttl: '1h',
        listing_visibility: 'unauth',
        config: { credentials: ref('GCP_CREDS'), rotation_period: '24h', vm_alias: 'instance_id' },
        roles: [{ name: 'web', type: 'iam', bound_service_accounts: ['web@p.iam.gserviceaccount.com'], token_ttl: k.tokenTtl ?? '1h' }],
      },
      {
        path: 'wif',
        type: 'cloud',
        local: true,
        config: { service_account_email: 'vault@prod.iam.gserviceaccount.com', identity_token_audience: AUDIENCE, identity_token_ttl: '30m' },
      },
    ],
    snapshotConfigs: [
      {
        name: 's3',
        storage_type: 'cloudone-store',
        interval: '24h',
        retain: k.retain ?? 3,
        path_prefix: 'raft/',
        cloudone_bucket: 'snapshots',
        cloudone_region: 'eu-west-1',
        cloudone_access_key_id: 'AKIA',
        cloudone_secret_access_key: ref('S3_SECRET'),
        cloudone_session_token: ref('S3_SESSION'),
      },
      {
        name: 'gcs',
        storage_type: 'cloudtwo-store',
        interval: '12h',
        path_prefix: 'raft/',
        cloudtwo_bucket: 'gcs',
        cloudtwo_service_account_key: ref('GCS_KEY'),
        autoload_enabled: true,
      },
      {
        name: 'azure',
        storage_type: 'cloudthree-store',
        interval: '6h',
        path_prefix: 'raft',
        cloudthree_container_name: 'c',
        cloudthree_account_name: 'acct',
        cloudthree_auth_mode: 'managed',
        cloudthree_client_id: 'client-1',
      },
      {
        name: 'shared-az',
        storage_type: 'cloudthree-store',
        interval: '6h',
        path_prefix: 'raft/',
        cloudthree_container_name: 'c2',
        cloudthree_account_name: 'acct',
        cloudthree_account_key: ref('AZ_KEY'),
      },
      { name: 'local', storage_type: 'local', interval: '1h', path_prefix: '/var/snaps', local_max_space: 1_000_000 },
    ],
  });
}

const cli = contractCli(SECRETS);
const keyward = cli.keyward;
const dir = mkdtempSync(join(tmpdir(), 'keyward-vault-ent-cli-'));
const manifestPath = join(dir, 'keyward.manifest.json');
const declare = (k: Knobs = {}) => writeFileSync(manifestPath, JSON.stringify(enterprise(k)));
const apply = async () => {
  const r = await keyward('apply', '--auto-approve', '--manifest', manifestPath);
  expect({ code: r.code, out: r.code === 0 ? '' : r.out.slice(-2000) }).toEqual({ code: 0, out: '' });
  return r.out;
};
const planEmpty = async () => {
  const r = await keyward('plan', '--manifest', manifestPath, '--detailed-exitcode');
  expect({ code: r.code, out: r.code === 0 ? '' : r.out.slice(-2000) }).toEqual({ code: 0, out: '' });
};
const raw = cli.post;

test('apply settles, edits keep secrets, rotated keys are left alone, new fields round-trip with drift corrected, a standby works, a mount moves', async () => {
  declare();
  await apply();
  await planEmpty();
  expect(cli.vault.problems).toEqual([]);
  expect(cli.vault.mounts.get('wif')).toMatchObject({ local: true });
  expect(cli.vault.mounts.get('cloud')!.config).toMatchObject({ default_lease_ttl: 3600, listing_visibility: 'unauth' });
  expect(cli.vault.gcp.get('wif')!.config).toMatchObject({ identity_token_audience: AUDIENCE, identity_token_ttl: 1800 });
  expect(cli.vault.snapshots.get('gcs')).toMatchObject({ autoload_enabled: true, google_service_account_key: SECRETS.GCS_KEY });
  expect(cli.vault.snapshots.get('azure')).toMatchObject({ azure_auth_mode: 'managed', azure_client_id: 'client-1', path_prefix: 'raft' });

  // One field changes on a server that replaces: every secret of every config is still stored.
  declare({ retain: 5 });
  await apply();
  expect(cli.vault.snapshots.get('s3')).toMatchObject({ retain: 5, aws_secret_access_key: SECRETS.S3_SECRET, aws_session_token: SECRETS.S3_SESSION });
  expect(cli.vault.snapshots.get('shared-az')).toMatchObject({ azure_account_key: SECRETS.AZ_KEY });
  await planEmpty();

  // Vault rotates the key: no drift, no change planned, and an unrelated apply does not send it back.
  const rotated = cli.vault.rotateKey('cloud');
  const afterRotation = await keyward('plan', '--manifest', manifestPath, '--detailed-exitcode');
  expect(afterRotation.code).toBe(0);
  expect(afterRotation.out).not.toMatch(/credentials/);
  declare({ retain: 5, tokenTtl: '2h' });
  await apply();
  expect(cli.vault.gcp.get('cloud')!.config.credentials?.private_key_id).toBe(rotated);

  // Out-of-band changes to the new fields: drift in keyward's names, corrected by apply.
  await raw('auth/wif/config', { identity_token_ttl: 600 });
  await raw('sys/auth/cloud/tune', { default_lease_ttl: 60 });
  await raw('sys/storage/raft/snapshot-auto/config/gcs', { ...cli.vault.snapshots.get('gcs'), autoload_enabled: false });
  await raw('sys/storage/raft/snapshot-auto/config/azure', { ...cli.vault.snapshots.get('azure'), azure_client_id: 'client-x' });
  const drift = await keyward('plan', '--manifest', manifestPath, '--detailed-exitcode');
  expect(drift.code).toBe(2);
  expect(drift.out).toContain('identity_token_ttl: 600 -> 1800');
  expect(drift.out).toContain('default_lease_ttl: 60 -> 3600');
  expect(drift.out).toContain('autoload_enabled: false -> true');
  expect(drift.out).toContain('cloudthree_client_id: "client-x" -> "client-1"');
  expect(drift.out).not.toMatch(/gce_|aws_s3|google_|azure_/);
  await apply();
  expect(cli.vault.snapshots.get('gcs')).toMatchObject({ autoload_enabled: true, google_service_account_key: SECRETS.GCS_KEY });
  await planEmpty();

  // Through a standby (307 to the active node).
  const standby = await cli.vault.standby('perfstandby');
  process.env.VAULT_ADDR = standby.url;
  await planEmpty();
  declare({ retain: 6, tokenTtl: '2h' });
  await apply();
  expect(cli.vault.snapshots.get('s3')).toMatchObject({ retain: 6, aws_secret_access_key: SECRETS.S3_SECRET });
  expect(standby.requests.length).toBeGreaterThan(0);
  process.env.VAULT_ADDR = cli.vault.url;

  // The mount moves: an update (sys/remount), its roles and config come along.
  const roleId = cli.vault.gcp.get('cloud')!.roles.get('web')!.role_id;
  declare({ retain: 6, tokenTtl: '2h', path: 'gcp-prod', movedFrom: 'cloud' });
  const move = await keyward('plan', '--manifest', manifestPath);
  expect(move.out).toContain('~ path: "cloud" -> "gcp-prod"');
  // The config declares root rotation: Vault Enterprise de-registers a moved mount's rotation, so its fields are written again.
  expect(move.out).toMatch(/the config's rotation fields are written again after the move/);
  expect(move.out).toMatch(/Plan: 0 to create, 2 to update, 0 to replace, 0 to delete\./);
  await apply();
  expect(cli.vault.mounts.has('cloud')).toBe(false);
  expect(cli.vault.gcp.get('gcp-prod')!.roles.get('web')).toMatchObject({ role_id: roleId });
  await planEmpty();

  expect(cli.vault.problems).toEqual([]);
  expect(leakedSecrets(cli.printed)).toEqual([]);
}, 120_000);
