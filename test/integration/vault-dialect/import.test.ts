// keyward import from Vault: objects created in Vault's names are imported as construct code in
// keyward's names; synthesized and planned back against the same Vault, nothing readable changes,
// and after writing the unreadable secrets once the plan is empty.

import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { applyPlan } from '../../../src/reconcile/apply';
import { desiredFromManifest } from '../../../src/reconcile/desired';
import { mountCode, readMountForImport, readSnapshotsForImport, snapshotsCode } from '../../../src/reconcile/import-code';
import { makePlan } from '../../../src/reconcile/plan';
import { emptyRecord } from '../../../src/reconcile/record';
import { synthesizeImported } from '../reconcile/helpers';
import { CONTRACT_TOKEN, startVaultContract, type VaultContract } from '../../support/vault-contract/server';
import { vaultClient } from './stack';

const ROOT = resolve(__dirname, '../../..');
let vault: VaultContract;
beforeAll(async () => {
  vault = await startVaultContract();
});
afterAll(async () => {
  await vault.close();
});

const raw = (path: string, body: unknown) => fetch(`${vault.url}/v1/${path}`, { method: 'POST', headers: { 'x-vault-token': CONTRACT_TOKEN }, body: JSON.stringify(body) });

test('import from Vault, synthesize, plan back: no changes', async () => {
  await raw('sys/auth/legacy', { type: 'gcp', description: 'adopt me' });
  await raw('auth/legacy/config', { iam_alias: 'unique_id', gce_alias: 'instance_id', gce_metadata: 'zone,instance_id' });
  await raw('auth/legacy/role/web', { type: 'iam', bound_service_accounts: 'b@p,a@p', token_ttl: '1h', token_bound_cidrs: '10.0.0.9/32', allow_gce_inference: false });
  await raw('auth/legacy/role/batch', { type: 'gce', bound_zones: 'europe-west1-b', bound_labels: 'env:prod,tier:batch', token_type: 'service' });
  await raw('sys/storage/raft/snapshot-auto/config/offsite', {
    storage_type: 'aws-s3',
    interval: 86400,
    path_prefix: 'raft/',
    aws_s3_bucket: 'b',
    aws_s3_region: 'r',
    aws_access_key_id: 'AK',
    aws_secret_access_key: 'SK-original-do-not-print',
    // A stored secret no rule requires (issue 29, defect 3): import must still declare it.
    aws_session_token: 'ST-original-do-not-print',
  });
  await raw('sys/storage/raft/snapshot-auto/config/blobs', {
    storage_type: 'azure-blob',
    interval: '6h',
    path_prefix: 'raft/',
    azure_container_name: 'c',
    azure_account_name: 'acct',
    azure_account_key: 'AZ-original-do-not-print',
    azure_auth_mode: 'shared',
  });
  expect(vault.problems).toEqual([]);

  const client = vaultClient(vault.url);
  const dir = mkdtempSync(join(tmpdir(), 'keyward-vault-import-'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const module = join(ROOT, 'constructs');
  writeFileSync(join(dir, 'mount.ts'), mountCode(await readMountForImport(client, 'legacy'), { module, stackName: 'legacy', dialect: 'vault' }));
  writeFileSync(join(dir, 'snapshots.ts'), snapshotsCode(await readSnapshotsForImport(client), { module, stackName: 'snaps', dialect: 'vault' }));
  const code = readFileSync(join(dir, 'mount.ts'), 'utf8') + readFileSync(join(dir, 'snapshots.ts'), 'utf8');
  expect(code).toContain('CloudAuthRole.vm(stack, "legacy-batch"');
  expect(code).toContain('SnapshotStorage.cloudThree(');
  expect(code).toContain('sessionToken: offsite_cloudone_session_token.stringValue');
  expect(code).toContain('(set TF_VAR_offsite_cloudone_session_token)');
  expect(code).not.toMatch(/do-not-print|aws_|gce|azure_account/);

  const env = {
    ...process.env,
    TF_VAR_offsite_cloudone_session_token: 'ST-original-do-not-print',
    TF_VAR_offsite_cloudone_secret_access_key: 'SK-original-do-not-print',
    TF_VAR_blobs_cloudthree_account_key: 'AZ-original-do-not-print',
    CHECKPOINT_DISABLE: '1',
  };
  for (const f of ['mount.ts', 'snapshots.ts']) {
    const m = synthesizeImported(dir, f, env);
    expect(m.server.dialect).toBe('vault');
    const desired = desiredFromManifest(m, env);
    const { plan } = await makePlan(client, desired, emptyRecord());
    expect(plan.objects.flatMap((o) => o.changes.filter((c) => !c.sensitive))).toEqual([]);
    const result = await applyPlan(client, desired, emptyRecord(), plan, { env });
    const again = await makePlan(client, desired, result.record);
    expect(again.plan.objects.filter((o) => o.action !== 'no-op')).toEqual([]);
  }
  expect(vault.problems).toEqual([]);
  expect(vault.snapshots.get('offsite')).toMatchObject({ aws_session_token: 'ST-original-do-not-print' });
  await client.close();
}, 180_000);

test('import of a hand-made configuration that only Vault accepts (item 5 values, new fields): synthesized and planned back, no changes', async () => {
  await raw('sys/auth/vaultish', { type: 'gcp', description: 'by hand', local: true, config: { default_lease_ttl: '2h', listing_visibility: 'unauth' } });
  await raw('auth/vaultish/config', {
    service_account_email: 'vault@p.iam.gserviceaccount.com',
    identity_token_audience: '//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/v',
    identity_token_ttl: 1200,
  });
  await raw('auth/vaultish/role/ci', { type: 'gce', bound_service_accounts: ['*', 'ci@p.iam.gserviceaccount.com'], bound_zones: 'us-east1-b' });
  await raw('sys/storage/raft/snapshot-auto/config/oddities', {
    storage_type: 'azure-blob',
    interval: 40_000_000,
    path_prefix: 'no-trailing-slash',
    file_prefix: 'team/vault',
    azure_container_name: 'c',
    azure_account_name: 'acct',
    azure_blob_environment: 'azure-env',
    azure_auth_mode: 'managed',
    azure_client_id: 'client-7',
  });
  await raw('sys/storage/raft/snapshot-auto/config/gcs-autoload', {
    storage_type: 'google-gcs',
    interval: 3600,
    path_prefix: 'raft',
    google_gcs_bucket: 'b',
    autoload_enabled: true,
  });
  expect(vault.problems).toEqual([]);

  const client = vaultClient(vault.url);
  const dir = mkdtempSync(join(tmpdir(), 'keyward-vault-import-odd-'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const module = join(ROOT, 'constructs');
  const mount = mountCode(await readMountForImport(client, 'vaultish'), { module, stackName: 'vaultish', dialect: 'vault' });
  const snaps = snapshotsCode(
    (await readSnapshotsForImport(client)).filter((s) => ['oddities', 'gcs-autoload'].includes(s.name)),
    { module, stackName: 'odd', dialect: 'vault' },
  );
  expect(mount).toContain('local: true');
  expect(mount).toContain('identityTokenAudience:');
  expect(mount).toContain('boundServiceAccounts: ["*", "ci@p.iam.gserviceaccount.com"]');
  expect(snaps).toContain('authMode: "managed"');
  expect(snaps).toContain('autoloadEnabled: true');
  writeFileSync(join(dir, 'mount.ts'), mount);
  writeFileSync(join(dir, 'snapshots.ts'), snaps);
  const env = { ...process.env, CHECKPOINT_DISABLE: '1' };
  for (const f of ['mount.ts', 'snapshots.ts']) {
    const desired = desiredFromManifest(synthesizeImported(dir, f, env), env);
    const { plan } = await makePlan(client, desired, emptyRecord());
    expect(plan.objects.filter((o) => o.action !== 'no-op')).toEqual([]);
  }
  expect(vault.problems).toEqual([]);
  await client.close();
}, 180_000);
