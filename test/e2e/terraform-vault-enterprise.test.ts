// Vault Enterprise as it really is, through the real terraform CLI (1.11, offline) and plain HCL,
// against the strict Vault contract server in its harsh defaults (a snapshot config update REPLACES
// the stored object; google_endpoint reads back as false): every storage type settles; a one-field
// change keeps every stored secret; a key Vault rotated is neither drift nor sent again; WIF, root
// rotation, mount tune and `local`, autoload and Azure managed identity round-trip, drift on them is
// corrected; plan and apply go through a standby answering 307; a path change moves the mount with
// its roles; configs made by hand with values only Vault accepts import and plan empty.

import { randomBytes } from 'node:crypto';
import { serviceAccountKeyJson } from '../unit/constructs/fixtures';
import { terraformWorkdir, type TerraformWorkdir } from '../support/terraform-workdir';
import { CONTRACT_TOKEN, startVaultContract, type VaultContract } from '../support/vault-contract/server';

const CREDS = serviceAccountKeyJson('deployer@vault-ent.iam.gserviceaccount.com');
const S3_SECRET = `s3secret-${randomBytes(16).toString('hex')}`;
const GCS_KEY = JSON.stringify({ type: 'service_account', client_email: 'snap@e2e.iam.gserviceaccount.com', marker: `gcs-${randomBytes(24).toString('hex')}` });
const AZ_KEY = randomBytes(48).toString('base64');
const AUDIENCE = '//iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/vault/providers/prod';

interface Knobs {
  path: string;
  retain: number;
  tokenTtl: string;
  clientId: string;
  extra?: string;
}

const MAIN = (address: string, k: Knobs) => `terraform {
  required_providers {
    keyward = { source = "keyward/keyward" }
  }
}
variable "az_key" {
  type      = string
  sensitive = true
  ephemeral = true
}
provider "keyward" {
  address          = "${address}"
  fingerprint_salt = "vault-enterprise-e2e-salt-0123456789"
  dialect          = "vault"
}
resource "keyward_cloud_auth_backend" "cloud" {
  path               = "${k.path}"
  description        = "workloads"
  default_lease_ttl  = "1h"
  max_lease_ttl      = "24h"
  listing_visibility = "unauth"
  config {
    credentials_env = "KW_CREDS"
    rotation_period = "24h"
    vm_alias        = "instance_id"
  }
  roles "web" {
    type                   = "iam"
    bound_service_accounts = ["web@e2e.iam.gserviceaccount.com"]
    token_ttl              = "${k.tokenTtl}"
  }
}
resource "keyward_cloud_auth_backend" "wif" {
  path  = "wif"
  local = true
  config {
    service_account_email   = "vault@prod.iam.gserviceaccount.com"
    identity_token_audience = "${AUDIENCE}"
    identity_token_ttl      = "30m"
  }
}
resource "keyward_snapshot_auto_config" "s3" {
  name                           = "s3"
  storage_type                   = "cloudone-store"
  interval                       = "24h"
  retain                         = ${k.retain}
  path_prefix                    = "raft/"
  cloudone_bucket                = "snapshots"
  cloudone_region                = "eu-west-1"
  cloudone_access_key_id         = "AKIAE2E"
  cloudone_secret_access_key_env = "KW_S3_SECRET"
}
resource "keyward_snapshot_auto_config" "gcs" {
  name                             = "gcs"
  storage_type                     = "cloudtwo-store"
  interval                         = "12h"
  path_prefix                      = "raft/"
  cloudtwo_bucket                  = "gcs-snaps"
  cloudtwo_service_account_key_env = "KW_GCS_KEY"
  autoload_enabled                 = true
}
resource "keyward_snapshot_auto_config" "azure" {
  name                      = "azure"
  storage_type              = "cloudthree-store"
  interval                  = "6h"
  path_prefix               = "raft"
  cloudthree_container_name = "snapshots"
  cloudthree_account_name   = "keyward"
  cloudthree_auth_mode      = "managed"
  cloudthree_client_id      = "${k.clientId}"
}
resource "keyward_snapshot_auto_config" "azkey" {
  name                              = "azkey"
  storage_type                      = "cloudthree-store"
  interval                          = "6h"
  retain                            = ${k.retain}
  path_prefix                       = "raft/"
  cloudthree_container_name         = "keyed"
  cloudthree_account_name           = "keyward"
  cloudthree_account_key_wo         = var.az_key
  cloudthree_account_key_wo_version = 1
}
resource "keyward_snapshot_auto_config" "local" {
  name            = "local"
  storage_type    = "local"
  interval        = "1h"
  path_prefix     = "/var/lib/vault-snaps"
  local_max_space = 10000000
}
${k.extra ?? ''}`;

const BASE: Knobs = { path: 'cloud', retain: 3, tokenTtl: '1h', clientId: 'client-1' };

describe('terraform (HCL) against Vault Enterprise as it really is (contract server, harsh defaults)', () => {
  let vault: VaultContract;
  let w: TerraformWorkdir;
  let address = '';
  const env = () => ({ KEYWARD_DIALECT: '', VAULT_ADDR: '', VAULT_TOKEN: CONTRACT_TOKEN, KW_CREDS: CREDS, KW_S3_SECRET: S3_SECRET, KW_GCS_KEY: GCS_KEY, TF_VAR_az_key: AZ_KEY });
  const write = (k: Knobs) => w.write('main.tf', MAIN(address, k));
  const raw = (path: string, body: unknown) => fetch(`${vault.url}/v1/${path}`, { method: 'POST', headers: { 'x-vault-token': CONTRACT_TOKEN }, body: JSON.stringify(body) });
  const planEmpty = async (envOver: NodeJS.ProcessEnv = {}) => {
    const r = await w.tf(['plan', '-input=false', '-detailed-exitcode'], envOver);
    expect({ code: r.code, noChanges: r.out.includes('No changes.'), out: r.code === 0 ? '' : r.out.slice(-2500) }).toEqual({ code: 0, noChanges: true, out: '' });
  };

  beforeAll(async () => {
    vault = await startVaultContract();
    address = vault.url;
    w = terraformWorkdir('keyward-tf-vault-ent-', env);
  });
  afterAll(async () => {
    await vault?.close();
    w?.close();
  });

  it('settles, keeps secrets, ignores rotated keys, corrects drift, works through a standby, moves a mount, imports what Vault accepts', async () => {
    write(BASE);
    await w.ok(['init', '-input=false']);
    expect(await w.ok(['apply', '-input=false', '-auto-approve'])).toContain('Apply complete! Resources: 7 added, 0 changed, 0 destroyed.');
    expect(vault.problems).toEqual([]);
    expect(vault.mounts.get('cloud')).toMatchObject({ type: 'gcp', local: false });
    expect(vault.mounts.get('wif')).toMatchObject({ type: 'gcp', local: true });
    expect(vault.gcp.get('wif')!.config).toMatchObject({
      service_account_email: 'vault@prod.iam.gserviceaccount.com',
      identity_token_audience: AUDIENCE,
      identity_token_ttl: 1800,
    });
    expect(vault.snapshots.get('gcs')).toMatchObject({ storage_type: 'google-gcs', autoload_enabled: true, google_service_account_key: GCS_KEY });
    expect(vault.snapshots.get('azure')).toMatchObject({ azure_auth_mode: 'managed', azure_client_id: 'client-1', path_prefix: 'raft' });

    // Every storage type settles (the GCS config's google_endpoint reads back as false).
    await planEmpty();

    // A one-field change on a server that replaces: every stored secret is still there.
    expect(vault.snapshots.get('azkey')).toMatchObject({ azure_account_key: AZ_KEY, retain: 3 });
    write({ ...BASE, retain: 5 });
    expect(await w.ok(['apply', '-input=false', '-auto-approve'])).toContain('0 added, 2 changed, 0 destroyed');
    expect(vault.snapshots.get('s3')).toMatchObject({ retain: 5, aws_secret_access_key: S3_SECRET, aws_access_key_id: 'AKIAE2E' });
    // A write-only secret too: Terraform hands it to the provider at every apply.
    expect(vault.snapshots.get('azkey')).toMatchObject({ retain: 5, azure_account_key: AZ_KEY });
    expect(vault.snapshots.get('gcs')).toMatchObject({ google_service_account_key: GCS_KEY, autoload_enabled: true });
    await planEmpty();

    // Vault rotates the root key on its schedule: no drift, and no apply sends the declared key again.
    const declaredKeyId = vault.gcp.get('cloud')!.config.credentials?.private_key_id;
    const rotated = vault.rotateKey('cloud');
    expect(rotated).not.toBe(declaredKeyId);
    await planEmpty();
    write({ ...BASE, retain: 5, tokenTtl: '2h' });
    expect(await w.ok(['apply', '-input=false', '-auto-approve'])).toContain('0 added, 1 changed, 0 destroyed');
    expect(vault.gcp.get('cloud')!.config.credentials?.private_key_id).toBe(rotated);
    expect(vault.gcp.get('cloud')!.roles.get('web')).toMatchObject({ token_ttl: 7200 });

    // Out-of-band changes to the new fields are drift, shown in keyward's names and corrected.
    await raw('auth/wif/config', { identity_token_ttl: 600 });
    await raw('sys/auth/cloud/tune', { default_lease_ttl: 60, listing_visibility: 'hidden' });
    await raw('sys/storage/raft/snapshot-auto/config/gcs', { ...vault.snapshots.get('gcs'), autoload_enabled: false });
    await raw('sys/storage/raft/snapshot-auto/config/azure', { ...vault.snapshots.get('azure'), azure_client_id: 'client-x' });
    const drift = await w.tf(['plan', '-input=false', '-detailed-exitcode']);
    expect(drift.code).toBe(2);
    expect(drift.out).toContain('0 to add, 4 to change, 0 to destroy');
    expect(drift.out).toMatch(/~ identity_token_ttl\s+= "600" -> "30m"/);
    expect(drift.out).toMatch(/~ default_lease_ttl\s+= "60" -> "1h"/);
    expect(drift.out).toMatch(/~ autoload_enabled\s+= false -> true/);
    expect(drift.out).toMatch(/~ cloudthree_client_id\s+= "client-x" -> "client-1"/);
    expect(drift.out).not.toMatch(/gce_|aws_s3|google_|azure_/);
    await w.ok(['apply', '-input=false', '-auto-approve']);
    expect(vault.gcp.get('wif')!.config).toMatchObject({ identity_token_ttl: 1800 });
    expect(vault.mounts.get('cloud')!.config).toMatchObject({ default_lease_ttl: 3600, listing_visibility: 'unauth' });
    expect(vault.snapshots.get('gcs')).toMatchObject({ autoload_enabled: true, google_service_account_key: GCS_KEY });
    expect(vault.snapshots.get('azure')).toMatchObject({ azure_client_id: 'client-1' });
    await planEmpty();

    // Through a standby that does not forward (307 to the active node): plan and apply work. The
    // provider block's address is the standby's (VAULT_ADDR is unset).
    const standby = await vault.standby('standby');
    address = standby.url;
    write({ ...BASE, retain: 5, tokenTtl: '2h' });
    await planEmpty();
    write({ ...BASE, retain: 6, tokenTtl: '2h' });
    expect(await w.ok(['apply', '-input=false', '-auto-approve'])).toContain('0 added, 2 changed, 0 destroyed');
    address = vault.url;
    expect(standby.requests.length).toBeGreaterThan(0);
    expect(vault.snapshots.get('s3')).toMatchObject({ retain: 6, aws_secret_access_key: S3_SECRET });

    // A path change moves the mount: an update, the roles and the config come along.
    const roleId = vault.gcp.get('cloud')!.roles.get('web')!.role_id;
    write({ ...BASE, retain: 6, tokenTtl: '2h', path: 'gcp-prod' });
    const move = await w.tf(['plan', '-input=false', '-detailed-exitcode']);
    expect(move.out).toContain('0 to add, 1 to change, 0 to destroy');
    expect(move.out).toContain('auth/cloud moves to auth/gcp-prod');
    await w.ok(['apply', '-input=false', '-auto-approve']);
    expect(vault.mounts.has('cloud')).toBe(false);
    expect(vault.gcp.get('gcp-prod')!.roles.get('web')).toMatchObject({ role_id: roleId, token_ttl: 7200 });
    await planEmpty();

    // Configs made by hand with values only Vault accepts import and plan empty.
    await raw('sys/auth/legacy', { type: 'gcp', description: 'by hand' });
    await raw('auth/legacy/role/ci', { type: 'gce', bound_service_accounts: ['*', 'ci@x.iam.gserviceaccount.com'], bound_zones: 'us-east1-b' });
    await raw('sys/storage/raft/snapshot-auto/config/byhand', {
      storage_type: 'azure-blob',
      interval: 40_000_000,
      path_prefix: 'vault',
      file_prefix: 'team/vault',
      azure_container_name: 'c',
      azure_account_name: 'acct',
      azure_blob_environment: 'azure-env',
      azure_auth_mode: 'managed',
      azure_client_id: 'client-9',
    });
    const imported = `
resource "keyward_cloud_auth_backend" "legacy" {
  path        = "legacy"
  description = "by hand"
  config {}
  roles "ci" {
    type                   = "vm"
    bound_service_accounts = ["*", "ci@x.iam.gserviceaccount.com"]
    bound_zones            = ["us-east1-b"]
  }
}
resource "keyward_snapshot_auto_config" "byhand" {
  name                        = "byhand"
  storage_type                = "cloudthree-store"
  interval                    = "40000000"
  path_prefix                 = "vault"
  file_prefix                 = "team/vault"
  cloudthree_container_name   = "c"
  cloudthree_account_name     = "acct"
  cloudthree_blob_environment = "azure-env"
  cloudthree_auth_mode        = "managed"
  cloudthree_client_id        = "client-9"
}
`;
    write({ ...BASE, retain: 6, tokenTtl: '2h', path: 'gcp-prod', extra: imported });
    expect(await w.ok(['import', '-input=false', 'keyward_cloud_auth_backend.legacy', 'legacy'])).toContain('Import successful!');
    expect(await w.ok(['import', '-input=false', 'keyward_snapshot_auto_config.byhand', 'byhand'])).toContain('Import successful!');
    await planEmpty();

    expect(await w.ok(['destroy', '-input=false', '-auto-approve'])).toContain('Destroy complete! Resources: 9 destroyed.');
    expect(vault.snapshots.size).toBe(0);
    expect(vault.problems).toEqual([]);
    for (const secret of [CREDS, S3_SECRET, GCS_KEY, AZ_KEY]) expect(w.outputs.some((o) => o.includes(secret))).toBe(false);
  }, 900_000);
});
