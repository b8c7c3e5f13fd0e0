// The Terraform provider's resources through the plugin contract against the strict Vault contract
// server (Vault's names and shapes): plan -> apply -> empty plan, drift shown in keyward's names and
// corrected, import by mount path and by snapshot config name, all four storage types with their
// secrets (which Vault returns in clear on read, vault#10971) never in state, private state,
// diagnostics or plans, and destroy. The dialect comes from the provider block or from detection.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keywardProvider, type KeywardProviderContext } from '../../../src/terraform/keyward-provider';
import type { ObjectValue, ResourceHandler } from '../../../src/terraform/plugin/contract';
import { TerraformDriver } from '../../support/terraform-driver';
import { CONTRACT_TOKEN, startVaultContract, type VaultContract } from '../../support/vault-contract/server';
import { leakedSecrets, SECRETS } from './stack';
import { providerSession } from '../../support/provider-session';

let vault: VaultContract;
/** Everything the provider handed back to Terraform: states, private states, plans, diagnostics. */
const outputs: unknown[] = [];
const show = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'symbol' ? String(x) : x instanceof Uint8Array ? Buffer.from(x).toString('utf8') : x));

beforeAll(async () => {
  vault = await startVaultContract();
});
afterAll(async () => {
  await vault.close();
});
afterEach(() => {
  // Every request the provider sent was in Vault's vocabulary.
  expect(vault.problems).toEqual([]);
  expect(leakedSecrets(show(outputs))).toEqual([]);
});

const raw = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${vault.url}/v1/${path}`, { method, headers: { 'x-vault-token': CONTRACT_TOKEN }, body: body === undefined ? undefined : JSON.stringify(body) });
  return res.status === 204 ? undefined : ((await res.json()) as { data?: Record<string, unknown> });
};

/** A handler whose results (including private state) are recorded for the secret scan. */
function recorded(h: ResourceHandler<KeywardProviderContext>): ResourceHandler<KeywardProviderContext> {
  const keep = <T>(v: T): T => (outputs.push(v), v);
  return {
    ...h,
    read: async (ctx, state) => keep(await h.read(ctx, state)),
    plan: async (ctx, req) => keep(await h.plan(ctx, req)),
    apply: async (ctx, req) => keep(await h.apply(ctx, req)),
    import: async (ctx, id) => keep(await h.import(ctx, id)),
  };
}

/** A driver for one resource type; `dialect` null = let the provider detect it from sys/health. */
async function driver(typeName: string, dialect: 'vault' | null = 'vault') {
  const env: Record<string, string> = { VAULT_ADDR: vault.url, VAULT_TOKEN: CONTRACT_TOKEN, ...SECRETS };
  delete env.KEYWARD_DIALECT;
  const s = await providerSession({ env, typeName, config: { fingerprint_salt: 'vault-tf-salt-0123456789', ...(dialect ? { dialect } : {}) }, wrap: recorded });
  const track = <T>(v: T): T => (outputs.push(v), v);
  return { ...s, track };
}

const web = {
  type: 'iam',
  bound_service_accounts: ['app@proj-a.iam.gserviceaccount.com'],
  token_ttl: '1h',
  max_jwt_exp: '10m',
  allow_vm_inference: false,
  token_bound_cidrs: ['10.0.0.9/32', '10.1.0.0/16'],
};
const batch = { type: 'vm', bound_zones: ['europe-west1-b'], bound_labels: { env: 'prod', tier: 'batch' }, token_type: 'service', add_group_aliases: true };
const backendConfig = {
  credentials_env: 'GCP_CREDS',
  iam_alias: 'unique_id',
  vm_alias: 'instance_id',
  vm_metadata: ['zone', 'instance_id'],
  custom_endpoint: { iam: 'https://iam.internal:8443' },
};

test('backend: apply in Vault names, plan empty, drift shown in keyward names and corrected, Vault-only fields left alone', async () => {
  const { d, writes, reset, track, close } = await driver('keyward_cloud_auth_backend');
  expect(await d.ctx.client!.dialect()).toBe('vault');
  const config = d.config({ path: 'cloud', description: 'workloads on Google Cloud', config: backendConfig, roles: { web, batch } });
  const created = track(await d.deploy(null, config));
  expect(created.plan.changes).toEqual(['']);
  expect(created.state!.accessor).toMatch(/^auth_gcp_/);

  // What Vault holds: its own names.
  expect(vault.mounts.get('cloud')).toMatchObject({ type: 'gcp', description: 'workloads on Google Cloud' });
  const gcp = vault.gcp.get('cloud')!;
  expect(gcp.config).toMatchObject({
    gce_alias: 'instance_id',
    gce_metadata: ['instance_id', 'zone'],
    iam_alias: 'unique_id',
    custom_endpoint: { iam: 'https://iam.internal:8443' },
  });
  expect(gcp.config.credentials?.private_key_id).toBe('key-one');
  expect(gcp.roles.get('web')).toMatchObject({ type: 'iam', allow_gce_inference: false, max_jwt_exp: 600, token_ttl: 3600, token_bound_cidrs: ['10.0.0.9', '10.1.0.0/16'] });
  expect(gcp.roles.get('batch')).toMatchObject({ type: 'gce', bound_labels: { env: 'prod', tier: 'batch' }, token_type: 'service' });

  // Converged: the /32 Vault trimmed and the durations it turned into seconds compare equal.
  reset();
  const again = track(await d.deploy(created.state, config));
  expect(again.plan.changes).toEqual([]);
  expect(again.plan.diagnostics).toEqual([]);
  expect(writes()).toEqual([]);

  // Root rotation and workload identity settings are managed config fields: set out of band they
  // are drift, planned back to what the configuration says (here: the defaults) with the change.
  await raw('POST', 'auth/cloud/config', { rotation_period: 86400, service_account_email: 'vault@p.iam.gserviceaccount.com' });
  const aliased = d.config({ path: 'cloud', description: 'workloads on Google Cloud', config: { ...backendConfig, vm_alias: 'role_id' }, roles: { web, batch } });
  reset();
  const changed = track(await d.deploy((await d.read(again.state!))!, aliased));
  expect(changed.plan.changes.sort()).toEqual(['config.rotation_period', 'config.service_account_email', 'config.vm_alias']);
  expect(writes()).toEqual(['POST auth/cloud/config']);
  expect(gcp.config.gce_alias).toBe('role_id');
  expect(gcp.config).toMatchObject({ rotation_period: 0, service_account_email: '' });

  // Drift made in Vault's names appears on refresh in keyward's names; apply corrects it.
  await raw('POST', 'auth/cloud/role/web', { token_ttl: 7200, allow_gce_inference: true });
  await raw('POST', 'auth/cloud/role/batch', { bound_zones: 'us-east1-b' });
  await raw('POST', 'sys/auth/cloud/tune', { description: 'changed by hand' });
  const refreshed = track((await d.read(changed.state!))!);
  const drift = track(await d.plan(refreshed, aliased));
  expect(drift.changes.sort()).toEqual(['description', 'roles["batch"].bound_zones', 'roles["web"].allow_vm_inference', 'roles["web"].token_ttl']);
  expect(show(drift)).not.toMatch(/gce|aws_|google_|azure_/);
  reset();
  const fixed = track(await d.apply(refreshed, drift.planned, aliased));
  expect(writes().sort()).toEqual(['POST auth/cloud/role/batch', 'POST auth/cloud/role/web', 'POST sys/auth/cloud/tune']);
  expect(vault.mounts.get('cloud')?.description).toBe('workloads on Google Cloud');
  expect(gcp.roles.get('web')).toMatchObject({ token_ttl: 3600, allow_gce_inference: false });
  expect(gcp.roles.get('batch')).toMatchObject({ bound_zones: ['europe-west1-b'] });
  expect(track(await d.plan(track((await d.read(fixed.state!))!), aliased)).changes).toEqual([]);

  // A credentials rotation sends the new key only (Vault never returns it: fingerprint in state).
  d.ctx.env.GCP_CREDS = SECRETS.GCP_CREDS.replace('key-one', 'key-two');
  const rotated = track(await d.deploy(fixed.state, aliased));
  expect(rotated.plan.changes).toEqual(['config.credentials_fingerprint']);
  expect(gcp.config.credentials?.private_key_id).toBe('key-two');
  d.ctx.env.GCP_CREDS = SECRETS.GCP_CREDS;
  const back = track(await d.deploy(rotated.state, aliased));
  expect((back.state!.config as ObjectValue).credentials_fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);

  // Vault refuses a key without its id: the diagnostic says so and never holds the value.
  d.ctx.env.GCP_CREDS = JSON.stringify({ type: 'service_account', private_key: 'BEGIN PRIVATE KEY do-not-print', client_email: 'x@p.iam.gserviceaccount.com' });
  const refused = await d.deploy(back.state, aliased).catch((e: { diagnostics?: unknown }) => e.diagnostics);
  outputs.push(refused);
  expect(show(refused)).toContain('Could not write auth/cloud/config');
  expect(show(refused)).toContain('missing private key in credentials');
  d.ctx.env.GCP_CREDS = SECRETS.GCP_CREDS;

  // Destroy: roles, then the mount, in Vault's names.
  track(await d.apply(back.state, null, null));
  expect(vault.mounts.has('cloud')).toBe(false);
  await close();
});

test('backend: a mount that moved without the apply seeing it (status lost, or by hand) stays in state: refresh follows its accessor', async () => {
  const { d, track, close } = await driver('keyward_cloud_auth_backend');
  const config = d.config({ path: 'wander', config: backendConfig, roles: { web } });
  const created = track(await d.deploy(null, config));
  const accessor = created.state!.accessor;
  // What an apply whose move could not be confirmed leaves behind: the mount elsewhere, the state
  // at the old path. Before, refresh found nothing at the old path and dropped the resource, and
  // the next plan refused to create a mount that exists.
  await raw('POST', 'sys/remount', { from: 'auth/wander', to: 'auth/wandered' });
  const read = track(await d.handler.read(d.ctx, created.state!));
  expect(read.state).toMatchObject({ path: 'wandered', accessor });
  expect(read.diagnostics?.map((x) => x.summary)).toEqual(['auth/wander is now at auth/wandered']);
  const settled = track(await d.plan(read.state, d.config({ path: 'wandered', config: backendConfig, roles: { web } })));
  expect(settled.changes).toEqual([]);
  const back = track(await d.plan(read.state, config));
  expect(back.changes).toEqual(['path']);
  close();
});

test('backend: import by mount path from Vault, then the same declaration plans nothing', async () => {
  await raw('POST', 'sys/auth/legacy', { type: 'gcp', description: 'by hand' });
  await raw('POST', 'auth/legacy/config', { iam_alias: 'unique_id', gce_alias: 'instance_id', gce_metadata: 'zone,instance_id' });
  await raw('POST', 'auth/legacy/role/web', {
    type: 'iam',
    bound_service_accounts: 'app@proj-a.iam.gserviceaccount.com',
    token_ttl: '1h',
    max_jwt_exp: 600,
    allow_gce_inference: false,
    token_bound_cidrs: '10.0.0.9/32,10.1.0.0/16',
  });
  await raw('POST', 'auth/legacy/role/batch', { type: 'gce', bound_zones: 'europe-west1-b', bound_labels: 'env:prod,tier:batch', token_type: 'service', add_group_aliases: true });
  const { d, writes, track, close } = await driver('keyward_cloud_auth_backend', null);
  const state = track((await d.read(track(await d.handler.import(d.ctx, 'legacy'))))!);
  expect(await d.ctx.client!.dialect()).toBe('vault'); // detected from sys/health "+ent"
  const roles = state.roles as Record<string, ObjectValue>;
  expect(Object.keys(roles).sort()).toEqual(['batch', 'web']);
  expect(roles.batch).toMatchObject({ type: 'vm', bound_labels: { env: 'prod', tier: 'batch' } });
  expect(roles.web).toMatchObject({ type: 'iam', allow_vm_inference: false });
  expect(state.config).toMatchObject({ vm_alias: 'instance_id', vm_metadata: ['instance_id', 'zone'] });
  const config = d.config({
    path: 'legacy',
    description: 'by hand',
    config: { iam_alias: 'unique_id', vm_alias: 'instance_id', vm_metadata: ['zone', 'instance_id'] },
    roles: { web, batch },
  });
  const plan = track(await d.plan(state, config));
  expect(plan.diagnostics).toEqual([]);
  expect(plan.changes).toEqual([]);
  expect(writes()).toEqual([]);
  // Destroy of an imported backend: its roles and then the mount go.
  track(await d.apply(state, null, null));
  expect(vault.mounts.has('legacy')).toBe(false);
  await close();
});

test('backend: destroy keeps a Vault mount that holds a role made by hand, with its config as it is', async () => {
  const { d, track, close } = await driver('keyward_cloud_auth_backend');
  const created = track(await d.deploy(null, d.config({ path: 'shared', config: backendConfig, roles: { web } })));
  await raw('POST', 'auth/shared/role/manual', { type: 'gce', bound_zones: 'europe-west1-b' });
  const out = track(await d.apply(track((await d.read(created.state!))!), null, null));
  expect(out.state).toBeNull();
  expect(out.diagnostics).toEqual([expect.objectContaining({ severity: 'warning', summary: expect.stringContaining('auth/shared kept') })]);
  expect(vault.mounts.get('shared')?.type).toBe('gcp');
  const gcp = vault.gcp.get('shared')!;
  expect([...gcp.roles.keys()]).toEqual(['manual']);
  // Resetting it (credentials "" = ambient credentials) would break the manual role's logins.
  expect(gcp.config.credentials).toBeDefined();
  expect(gcp.config).toMatchObject({ iam_alias: 'unique_id', gce_alias: 'instance_id', custom_endpoint: { iam: 'https://iam.internal:8443' } });
  await close();
});

const snapshotConfigs = (localDir: string) => ({
  hourly: { name: 'hourly', storage_type: 'local', interval: '1h', retain: 3, path_prefix: localDir, local_max_space: 10_000_000 },
  offsite: {
    name: 'offsite',
    storage_type: 'cloudone-store',
    interval: '24h',
    path_prefix: 'raft/',
    cloudone_bucket: 'backups',
    cloudone_region: 'eu-west-1',
    cloudone_access_key_id: 'AKIAEXAMPLE',
    cloudone_secret_access_key_env: 'S3_SECRET',
    cloudone_session_token_env: 'S3_SESSION',
    cloudone_force_path_style: true,
  },
  gcs: { name: 'gcs', storage_type: 'cloudtwo-store', interval: '12h', path_prefix: 'raft/', cloudtwo_bucket: 'gcs-backups', cloudtwo_service_account_key_env: 'GCS_KEY' },
  blobs: {
    name: 'blobs',
    storage_type: 'cloudthree-store',
    interval: '6h',
    path_prefix: 'raft/',
    file_prefix: 'prod',
    cloudthree_container_name: 'snapshots',
    cloudthree_account_name: 'keyward',
    cloudthree_account_key_env: 'AZ_KEY',
    cloudthree_blob_environment: 'AZUREPUBLICCLOUD',
  },
});

test('snapshot configs of all four storage types round-trip; secrets read back in clear are dropped, only fingerprints kept', async () => {
  const { d, writes, reset, track, close } = await driver('keyward_snapshot_auto_config');
  const states: Record<string, ObjectValue> = {};
  for (const [name, c] of Object.entries(snapshotConfigs('/var/kw-snaps'))) {
    const r = track(await d.deploy(null, d.config(c)));
    states[name] = r.state!;
  }
  expect(vault.snapshots.get('hourly')).toMatchObject({ storage_type: 'local', interval: 3600, retain: 3, local_max_space: 10_000_000 });
  expect(vault.snapshots.get('offsite')).toMatchObject({
    storage_type: 'aws-s3',
    interval: 86400,
    aws_s3_bucket: 'backups',
    aws_s3_region: 'eu-west-1',
    aws_secret_access_key: SECRETS.S3_SECRET,
    aws_session_token: SECRETS.S3_SESSION,
    aws_s3_force_path_style: true,
  });
  expect(vault.snapshots.get('gcs')).toMatchObject({ storage_type: 'google-gcs', google_gcs_bucket: 'gcs-backups', google_service_account_key: SECRETS.GCS_KEY });
  expect(vault.snapshots.get('blobs')).toMatchObject({ storage_type: 'azure-blob', azure_container_name: 'snapshots', azure_account_key: SECRETS.AZ_KEY, file_prefix: 'prod' });
  // Vault's read returns the secrets in clear (vault#10971): what the provider must never keep.
  expect(show(await raw('GET', 'sys/storage/raft/snapshot-auto/config/blobs'))).toContain(SECRETS.AZ_KEY);
  // The provider's client drops them on read, before any resource code sees the data.
  for (const name of Object.keys(states)) {
    const seen = await d.ctx.client!.snapshots.read(name);
    expect(seen?.storage_type).toBe(states[name].storage_type);
    expect({ name, leaked: leakedSecrets(show(seen)) }).toEqual({ name, leaked: [] });
  }

  for (const [name, c] of Object.entries(snapshotConfigs('/var/kw-snaps'))) {
    const s = states[name];
    expect(s.storage_type).toBe(c.storage_type);
    for (const f of Object.keys(s).filter((k) => k.endsWith('_fingerprint') && s[k.replace(/_fingerprint$/, '_env')] !== null)) expect(s[f]).toMatch(/^sha256:[0-9a-f]{64}$/);
    reset();
    const again = track(await d.deploy(s, d.config(c)));
    expect({ name, changes: again.plan.changes }).toEqual({ name, changes: [] });
    expect(writes()).toEqual([]);
  }

  // Drift in Vault's names, shown in keyward's, corrected.
  await raw('POST', 'sys/storage/raft/snapshot-auto/config/offsite', { ...vault.snapshots.get('offsite'), aws_s3_region: 'us-east-2', retain: 7 });
  await raw('POST', 'sys/storage/raft/snapshot-auto/config/blobs', { ...vault.snapshots.get('blobs'), azure_blob_environment: 'AZURECHINACLOUD' });
  const { offsite, blobs } = snapshotConfigs('/var/kw-snaps');
  const o = track(await d.deploy(states.offsite, d.config(offsite)));
  expect(o.plan.changes.sort()).toEqual(['cloudone_region', 'retain']);
  const b = track(await d.deploy(states.blobs, d.config(blobs)));
  expect(b.plan.changes).toEqual(['cloudthree_blob_environment']);
  expect(vault.snapshots.get('offsite')).toMatchObject({ aws_s3_region: 'eu-west-1', retain: 1, aws_secret_access_key: SECRETS.S3_SECRET });
  expect(vault.snapshots.get('blobs')).toMatchObject({ azure_blob_environment: 'AZUREPUBLICCLOUD' });
  expect(track(await d.deploy(o.state, d.config(offsite))).plan.changes).toEqual([]);

  // A rotated secret is sent once, under Vault's name.
  d.ctx.env.S3_SECRET = `${SECRETS.S3_SECRET}-rotated`;
  const rotated = track(await d.deploy(o.state, d.config(offsite)));
  expect(rotated.plan.changes).toEqual(['cloudone_secret_access_key_fingerprint']);
  expect(vault.snapshots.get('offsite')?.aws_secret_access_key).toBe(`${SECRETS.S3_SECRET}-rotated`);
  d.ctx.env.S3_SECRET = SECRETS.S3_SECRET;
  states.offsite = track(await d.deploy(rotated.state, d.config(offsite))).state!;

  // Destroy all four.
  for (const s of Object.values(states)) track(await d.apply(track((await d.read(s))!), null, null));
  expect(vault.snapshots.size).toBe(0);
  await close();
});

test('snapshot configs: import by name (every storage type), then only the undeclarable secret fingerprints plan', async () => {
  await raw('POST', 'sys/storage/raft/snapshot-auto/config/by-hand-local', { storage_type: 'local', interval: '24h', path_prefix: '/srv/snaps', local_max_space: 5000, retain: 3 });
  await raw('POST', 'sys/storage/raft/snapshot-auto/config/by-hand-s3', {
    storage_type: 'aws-s3',
    interval: 86400,
    path_prefix: 'raft/',
    aws_s3_bucket: 'b',
    aws_s3_region: 'r',
    aws_access_key_id: 'AK',
    aws_secret_access_key: SECRETS.S3_SECRET,
  });
  await raw('POST', 'sys/storage/raft/snapshot-auto/config/by-hand-gcs', {
    storage_type: 'google-gcs',
    interval: '1h',
    path_prefix: 'raft/',
    google_gcs_bucket: 'g',
    google_service_account_key: SECRETS.GCS_KEY,
  });
  await raw('POST', 'sys/storage/raft/snapshot-auto/config/by-hand-az', {
    storage_type: 'azure-blob',
    interval: '6h',
    path_prefix: 'raft/',
    azure_container_name: 'c',
    azure_account_name: 'acct',
    azure_account_key: SECRETS.AZ_KEY,
    azure_auth_mode: 'shared',
  });
  const { d, writes, reset, track, close } = await driver('keyward_snapshot_auto_config');
  const declared: Record<string, Record<string, unknown>> = {
    'by-hand-local': { storage_type: 'local', interval: '24h', path_prefix: '/srv/snaps', local_max_space: 5000, retain: 3 },
    'by-hand-s3': {
      storage_type: 'cloudone-store',
      interval: '24h',
      path_prefix: 'raft/',
      cloudone_bucket: 'b',
      cloudone_region: 'r',
      cloudone_access_key_id: 'AK',
      cloudone_secret_access_key_env: 'S3_SECRET',
    },
    'by-hand-gcs': { storage_type: 'cloudtwo-store', interval: '1h', path_prefix: 'raft/', cloudtwo_bucket: 'g', cloudtwo_service_account_key_env: 'GCS_KEY' },
    'by-hand-az': {
      storage_type: 'cloudthree-store',
      interval: '6h',
      path_prefix: 'raft/',
      cloudthree_container_name: 'c',
      cloudthree_account_name: 'acct',
      cloudthree_account_key_env: 'AZ_KEY',
    },
  };
  for (const [name, fields] of Object.entries(declared)) {
    const state = track((await d.read(track(await d.handler.import(d.ctx, name))))!);
    expect(state.storage_type).toBe(fields.storage_type);
    reset();
    const plan = track(await d.plan(state, d.config({ name, ...fields })));
    expect(plan.diagnostics).toEqual([]);
    // Vault cannot tell keyward whether a secret matches: adopting it means sending it once.
    expect({ name, changes: plan.changes }).toEqual({
      name,
      changes: Object.keys(fields)
        .filter((f) => f.endsWith('_env'))
        .flatMap((f) => [f, f.replace(/_env$/, '_fingerprint')]),
    });
    const applied = track(await d.apply(state, plan.planned, d.config({ name, ...fields })));
    expect(track(await d.plan(track((await d.read(applied.state!))!), d.config({ name, ...fields }))).changes).toEqual([]);
    expect(writes().length).toBeLessThanOrEqual(1);
  }
  await close();
});

test('exclusive snapshot configs: a config made by hand in Vault plans as removed and apply deletes it', async () => {
  const { d, track, close } = await driver('keyward_exclusive_snapshot_configs');
  const config = d.config({ names: ['by-hand-local', 'by-hand-s3', 'by-hand-gcs', 'by-hand-az'] });
  const { state } = track(await d.deploy(null, config));
  await raw('POST', 'sys/storage/raft/snapshot-auto/config/rogue', { storage_type: 'local', interval: 60, path_prefix: '/tmp/kw-rogue', local_max_space: 1 });
  const r = track(await d.deploy(state, config));
  expect(r.plan.changes).toEqual(['names']);
  expect(vault.snapshots.has('rogue')).toBe(false);
  expect([...vault.snapshots.keys()].sort()).toEqual(['by-hand-az', 'by-hand-gcs', 'by-hand-local', 'by-hand-s3']);
  await close();
});

test('a server that does not say what it is: the diagnostic tells how to set the dialect in the provider block', async () => {
  const odd = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  await new Promise<void>((r) => odd.listen(0, '127.0.0.1', r));
  const provider = keywardProvider({ env: { VAULT_ADDR: `http://127.0.0.1:${(odd.address() as AddressInfo).port}`, VAULT_TOKEN: CONTRACT_TOKEN } });
  try {
    const d = await TerraformDriver.configure<KeywardProviderContext>(provider, 'keyward_snapshot_auto_config', { fingerprint_salt: 'x' });
    await expect(d.read(d.config({ name: 'any', storage_type: 'local', interval: '1h', path_prefix: '/x' }))).rejects.toThrow(
      /sys\/health returned no version.*dialect in the keyward provider block/,
    );
  } finally {
    await provider.stop!();
    odd.closeAllConnections();
    await new Promise<void>((r) => odd.close(() => r()));
  }
});

test('a community Vault: the backend works, a snapshot config fails at plan with an error naming the edition and keyward snapshot-agent, and nothing is written', async () => {
  const oss = await startVaultContract({ enterprise: false });
  const provider = keywardProvider({ env: { VAULT_ADDR: oss.url, VAULT_TOKEN: CONTRACT_TOKEN, ...SECRETS } });
  try {
    const b = await TerraformDriver.configure<KeywardProviderContext>(provider, 'keyward_cloud_auth_backend', { fingerprint_salt: 'x' });
    const { state } = await b.deploy(null, b.config({ path: 'cloud', config: backendConfig, roles: { web, batch } }));
    expect(oss.mounts.get('cloud')?.type).toBe('gcp');
    expect((await b.deploy(state, b.config({ path: 'cloud', config: backendConfig, roles: { web, batch } }))).plan.changes).toEqual([]);
    const s = await TerraformDriver.configure<KeywardProviderContext>(provider, 'keyward_snapshot_auto_config', { fingerprint_salt: 'x' });
    const config = s.config(snapshotConfigs('/var/kw-snaps').offsite);
    const refused = await s.plan(null, config).then(
      () => 'planned',
      (e: Error & { diagnostics?: unknown }) => e.diagnostics ?? e.message,
    );
    expect(JSON.stringify(refused)).toMatch(/needs Vault Enterprise.*community edition \(Vault community or OpenBao\) 1\.19\.2.*keyward snapshot-agent --server/s);
    expect(oss.requests.filter((r) => r.path.includes('snapshot-auto'))).toEqual([]);
    expect(oss.problems).toEqual([]);
  } finally {
    await provider.stop!();
    await oss.close();
  }
});
