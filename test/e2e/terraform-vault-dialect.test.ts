// The keyward provider through the real terraform CLI (1.11, offline, launcher in
// terraform.d/plugins) against the strict Vault contract server, the provider block saying
// dialect = "vault": apply, empty plan, out-of-band changes in Vault's names shown in keyward's and
// corrected, the same state planned with the dialect detected instead, import of a snapshot config
// made by hand, destroy; no secret in any file Terraform keeps (plan file unzipped) or any output.
// Then a stack synthesized from the constructs with KeywardServer({ dialect: 'vault' }): terraform
// applies it in the stack directory and `keyward plan --dir` agrees. terraform runs asynchronously: the contract server lives in this process (run-async.ts).

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runAsync } from '../support/run-async';
import { REPO, terraformWorkdir, type TerraformWorkdir } from '../support/terraform-workdir';
import { CONTRACT_TOKEN, startVaultContract, type VaultContract } from '../support/vault-contract/server';
import { serviceAccountKeyJson } from '../unit/constructs/fixtures';

const CREDS = serviceAccountKeyJson('deployer@vault-e2e.iam.gserviceaccount.com');
const S3_SECRET = `s3secret-${randomBytes(16).toString('hex')}`;
const AZURE_KEY = randomBytes(48).toString('base64');
const GCS_KEY = JSON.stringify({ type: 'service_account', client_email: 'snap@e2e.iam.gserviceaccount.com', marker: `gcs-${randomBytes(24).toString('hex')}` });
const SECRETS = {
  'credentials JSON': CREDS,
  'credentials private key': (JSON.parse(CREDS) as { private_key: string }).private_key.split('\n')[3],
  'S3 secret key': S3_SECRET,
  'Azure account key': AZURE_KEY,
  'GCS key': GCS_KEY,
};

/** The stack, as Terraform JSON; `dialect` undefined = detect it from sys/health. */
function stack(address: string, dialect: 'vault' | undefined, extra: Record<string, unknown> = {}) {
  return {
    terraform: { required_providers: { keyward: { source: 'keyward/keyward' } } },
    variable: { azure_key: { type: 'string', sensitive: true, ephemeral: true } },
    provider: { keyward: { address, fingerprint_salt: 'e2e-vault-salt-0123456789', ...(dialect ? { dialect } : {}) } },
    resource: {
      keyward_cloud_auth_backend: {
        cloud: {
          path: 'cloud',
          description: 'workloads on Google Cloud',
          exclusive_roles: true,
          config: { credentials_env: 'KW_CREDS', iam_alias: 'unique_id', vm_alias: 'instance_id', vm_metadata: ['zone', 'instance_id'] },
          roles: {
            web: { type: 'iam', bound_service_accounts: ['web@e2e.iam.gserviceaccount.com'], token_ttl: '1h', allow_vm_inference: false, token_bound_cidrs: ['10.0.0.9/32'] },
            batch: { type: 'vm', bound_zones: ['europe-west1-b'], bound_labels: { env: 'e2e' }, token_type: 'service' },
          },
        },
      },
      keyward_snapshot_auto_config: {
        hourly: { name: 'hourly', storage_type: 'local', interval: '1h', retain: 2, path_prefix: '/var/lib/vault-snaps', local_max_space: 10000000 },
        s3: {
          name: 's3',
          storage_type: 'cloudone-store',
          interval: '24h',
          path_prefix: 'raft/',
          cloudone_bucket: 'snapshots',
          cloudone_region: 'eu-west-1',
          cloudone_access_key_id: 'AKIAE2E',
          cloudone_secret_access_key_env: 'KW_S3_SECRET',
        },
        gcs: { name: 'gcs', storage_type: 'cloudtwo-store', interval: '12h', path_prefix: 'raft/', cloudtwo_bucket: 'gcs-snaps', cloudtwo_service_account_key_env: 'KW_GCS_KEY' },
        azure: {
          name: 'azure',
          storage_type: 'cloudthree-store',
          interval: '6h',
          path_prefix: 'raft/',
          cloudthree_container_name: 'snapshots',
          cloudthree_account_name: 'keyward',
          cloudthree_account_key_wo: '${var.azure_key}',
          cloudthree_account_key_wo_version: 1,
        },
        ...extra,
      },
    },
  };
}

/** A cdktf app using the constructs, pinned to the vault dialect (the provider block and the manifest). */
const APP = (repo: string) => `
import { App, TerraformStack } from 'cdktf';
import { CloudAuthBackend, CloudAuthRole, CloudThreeAuthMode, KeywardServer, SnapshotAutoConfig, SnapshotStorage, secretFromEnv } from ${JSON.stringify(join(repo, 'constructs'))};
const app = new App();
const stack = new TerraformStack(app, 'vault');
const server = new KeywardServer(stack, 'server', { address: process.env.KW_ADDRESS, dialect: 'vault' });
const backend = new CloudAuthBackend(stack, 'cloud', {
  server,
  description: 'synthesized',
  defaultLeaseTtl: '1h',
  listingVisibility: 'unauth',
  config: { credentials: secretFromEnv('KW_CREDS'), vmAlias: 'instance_id', rotationPeriod: '24h' },
});
new CloudAuthBackend(stack, 'wif', {
  server,
  path: 'wif',
  local: true,
  config: { serviceAccountEmail: 'vault@prod.iam.gserviceaccount.com', identityTokenAudience: '//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/v', identityTokenTtl: '30m' },
});
new SnapshotAutoConfig(stack, 'gcs', { server, interval: '12h', pathPrefix: 'raft', autoloadEnabled: true, storage: SnapshotStorage.cloudTwo({ bucket: 'gcs', serviceAccountKey: secretFromEnv('KW_GCS_KEY') }) });
new SnapshotAutoConfig(stack, 'azure', {
  server,
  interval: '6h',
  pathPrefix: 'raft',
  storage: SnapshotStorage.cloudThree({ containerName: 'c', accountName: 'acct', authMode: CloudThreeAuthMode.MANAGED, clientId: 'client-1' }),
});
CloudAuthRole.iam(stack, 'web', { backend, boundServiceAccounts: ['web@e2e.iam.gserviceaccount.com'], tokenTtl: '1h', allowVmInference: false });
CloudAuthRole.vm(stack, 'batch', { backend, boundZones: ['europe-west1-b'], boundLabels: { env: 'e2e' } });
new SnapshotAutoConfig(stack, 'offsite', {
  server,
  interval: '24h',
  pathPrefix: 'raft/',
  storage: SnapshotStorage.cloudOne({ bucket: 'snapshots', region: 'eu-west-1', accessKeyId: 'AKIAE2E', secretAccessKey: secretFromEnv('KW_S3_SECRET') }),
});
app.synth();
`;

describe('terraform with the keyward provider in vault dialect, against the Vault contract server', () => {
  let vault: VaultContract;
  let wd: TerraformWorkdir;
  // The variables every run gets: the token and the secrets the resources read (never a stored token).
  const baseEnv = () => ({
    KEYWARD_DIALECT: '',
    VAULT_ADDR: '',
    VAULT_TOKEN: CONTRACT_TOKEN,
    KW_CREDS: CREDS,
    KW_S3_SECRET: S3_SECRET,
    KW_GCS_KEY: GCS_KEY,
    TF_VAR_azure_key: AZURE_KEY,
  });
  /** The environment of runs other than terraform's (the app, keyward). */
  const env = () => ({ ...process.env, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_CLI_CONFIG_FILE: join(wd.dir, 'empty.tfrc'), ...baseEnv() });
  const write = (s: object) => wd.write('main.tf.json', JSON.stringify(s, null, 2));
  const tfIn = (cwd: string, args: string[]) => wd.tf(args, {}, cwd);
  const tf = (...args: string[]) => wd.tf(args);
  const okIn = (cwd: string, ...args: string[]) => wd.ok(args, {}, cwd);
  const ok = (...args: string[]) => wd.ok(args);
  const raw = (path: string, body: unknown) => fetch(`${vault.url}/v1/${path}`, { method: 'POST', headers: { 'x-vault-token': CONTRACT_TOKEN }, body: JSON.stringify(body) });

  beforeAll(async () => {
    vault = await startVaultContract();
    // As in a project with keyward installed, plus the cdktf app's own imports.
    wd = terraformWorkdir('keyward-tf-vault-', baseEnv, ['cdktf', 'constructs']);
  });
  afterAll(async () => {
    await vault?.close();
    wd?.close();
  });

  it('applies, plans nothing, corrects out-of-band changes, imports, destroys; Vault only ever sees its own names', async () => {
    write(stack(vault.url, 'vault'));
    expect(await ok('init', '-input=false')).toContain('Terraform has been successfully initialized');
    const applied = await ok('apply', '-input=false', '-auto-approve');
    expect(applied).toContain('Apply complete! Resources: 5 added, 0 changed, 0 destroyed.');
    expect(vault.mounts.get('cloud')?.type).toBe('gcp');
    const gcp = vault.gcp.get('cloud')!;
    expect(gcp.config).toMatchObject({ gce_alias: 'instance_id', gce_metadata: ['instance_id', 'zone'] });
    expect(gcp.roles.get('web')).toMatchObject({ type: 'iam', allow_gce_inference: false, token_ttl: 3600, token_bound_cidrs: ['10.0.0.9'] });
    expect(gcp.roles.get('batch')).toMatchObject({ type: 'gce', bound_labels: { env: 'e2e' } });
    expect(vault.snapshots.get('s3')).toMatchObject({ storage_type: 'aws-s3', aws_s3_bucket: 'snapshots', aws_secret_access_key: S3_SECRET });
    expect(vault.snapshots.get('gcs')).toMatchObject({ storage_type: 'google-gcs', google_service_account_key: GCS_KEY });
    expect(vault.snapshots.get('azure')).toMatchObject({ storage_type: 'azure-blob', azure_account_key: AZURE_KEY });
    expect(vault.snapshots.get('hourly')).toMatchObject({ storage_type: 'local', interval: 3600 });

    const again = await tf('plan', '-input=false', '-detailed-exitcode');
    expect({ code: again.code, noChanges: again.out.includes('No changes.') }).toEqual({ code: 0, noChanges: true });

    // Out-of-band changes made in Vault's names, shown in keyward's, corrected by apply.
    await raw('auth/cloud/role/web', { token_ttl: 7200, allow_gce_inference: true });
    await raw('auth/cloud/role/backdoor', { type: 'gce', bound_zones: 'us-east1-b' });
    await raw('sys/storage/raft/snapshot-auto/config/s3', { ...vault.snapshots.get('s3'), aws_s3_region: 'us-east-2' });
    const drift = await tf('plan', '-input=false', '-detailed-exitcode', '-out=tfplan');
    expect(drift.code).toBe(2);
    expect(drift.out).toContain('0 to add, 2 to change, 0 to destroy');
    expect(drift.out).toMatch(/~ allow_vm_inference\s+= true -> false/);
    expect(drift.out).toMatch(/~ token_ttl\s+= "7200" -> "1h"/);
    expect(drift.out).toMatch(/~ cloudone_region\s+= "us-east-2" -> "eu-west-1"/);
    expect(drift.out).toMatch(/- roles "backdoor" \{/);
    expect(drift.out).not.toMatch(/gce|aws_s3|google_|azure_/);
    expect(await ok('apply', '-input=false', 'tfplan')).toContain('0 added, 2 changed, 0 destroyed');
    expect(gcp.roles.get('web')).toMatchObject({ token_ttl: 3600, allow_gce_inference: false });
    expect(gcp.roles.has('backdoor')).toBe(false);
    expect(vault.snapshots.get('s3')).toMatchObject({ aws_s3_region: 'eu-west-1', aws_secret_access_key: S3_SECRET });

    // The same state with the dialect detected from sys/health ("+ent"): nothing to do.
    write(stack(vault.url, undefined));
    const detected = await tf('plan', '-input=false', '-detailed-exitcode');
    expect({ code: detected.code, noChanges: detected.out.includes('No changes.') }).toEqual({ code: 0, noChanges: true });

    // A config made by hand in Vault, imported by name, then planned as declared: no changes.
    await raw('sys/storage/raft/snapshot-auto/config/byhand', { storage_type: 'local', interval: 86400, path_prefix: '/srv/by-hand', local_max_space: 5000, retain: 3 });
    write(stack(vault.url, 'vault', { byhand: { name: 'byhand', storage_type: 'local', interval: '24h', retain: 3, path_prefix: '/srv/by-hand', local_max_space: 5000 } }));
    expect(await ok('import', '-input=false', 'keyward_snapshot_auto_config.byhand', 'byhand')).toContain('Import successful!');
    const imported = await tf('plan', '-input=false', '-detailed-exitcode');
    expect({ code: imported.code, noChanges: imported.out.includes('No changes.') }).toEqual({ code: 0, noChanges: true });

    expect(await ok('destroy', '-input=false', '-auto-approve')).toContain('Destroy complete! Resources: 6 destroyed.');
    expect(vault.mounts.has('cloud')).toBe(false);
    expect(vault.snapshots.size).toBe(0);
    expect(vault.problems).toEqual([]);

    // No secret in any file Terraform kept (state, backups, the plan file unzipped) nor any output.
    expectNoSecrets(wd.dir, wd.outputs);
  }, 600_000);
  it('a stack synthesized with KeywardServer({ dialect: "vault" }): terraform applies it, keyward plan --dir agrees, drift corrected, destroy', async () => {
    const appDir = join(wd.dir, 'app');
    mkdirSync(appDir);
    writeFileSync(join(appDir, 'app.ts'), APP(REPO));
    const synth = await runAsync(process.execPath, ['--require', join(REPO, 'node_modules/tsx/dist/cjs/index.cjs'), join(appDir, 'app.ts')], {
      cwd: appDir,
      env: { ...env(), KW_ADDRESS: vault.url, CDKTF_OUTDIR: join(appDir, 'cdktf.out') },
    });
    wd.outputs.push(synth.stdout + synth.stderr);
    expect({ status: synth.status, err: synth.stderr.slice(-2000) }).toEqual({ status: 0, err: '' });
    const stackDir = join(appDir, 'cdktf.out', 'stacks', 'vault');
    const synthesized = JSON.parse(readFileSync(join(stackDir, 'cdk.tf.json'), 'utf8')) as { provider: { keyward: Array<Record<string, unknown>> } };
    expect(synthesized.provider.keyward[0]).toMatchObject({ address: vault.url, dialect: 'vault' });
    expect(JSON.parse(readFileSync(join(stackDir, 'keyward.manifest.json'), 'utf8')).server).toMatchObject({ dialect: 'vault' });

    await okIn(stackDir, 'init', '-input=false');
    expect(await okIn(stackDir, 'apply', '-input=false', '-auto-approve')).toContain('Apply complete! Resources: 5 added, 0 changed, 0 destroyed.');
    expect(vault.mounts.get('wif')).toMatchObject({ local: true });
    expect(vault.mounts.get('cloud')!.config).toMatchObject({ default_lease_ttl: 3600, listing_visibility: 'unauth' });
    expect(vault.gcp.get('cloud')!.config).toMatchObject({ rotation_period: 86400 });
    expect(vault.snapshots.get('gcs')).toMatchObject({ autoload_enabled: true, path_prefix: 'raft', google_service_account_key: GCS_KEY });
    expect(vault.snapshots.get('azure')).toMatchObject({ azure_auth_mode: 'managed', azure_client_id: 'client-1' });
    expect(vault.mounts.get('cloud')).toMatchObject({ type: 'gcp', description: 'synthesized' });
    expect(vault.gcp.get('cloud')!.roles.get('batch')).toMatchObject({ type: 'gce', bound_labels: { env: 'e2e' } });
    expect(vault.gcp.get('cloud')!.roles.get('web')).toMatchObject({ type: 'iam', allow_gce_inference: false });
    expect(vault.snapshots.get('offsite')).toMatchObject({ storage_type: 'aws-s3', aws_s3_bucket: 'snapshots', aws_secret_access_key: S3_SECRET });

    // keyward reads the same synthesized stack in the same dialect: nothing to do.
    const kp = await runAsync(process.execPath, [join(REPO, 'bin', 'keyward.js'), 'plan', '--dir', join(appDir, 'cdktf.out'), '--detailed-exitcode'], {
      cwd: appDir,
      env: { ...env(), VAULT_ADDR: vault.url },
    });
    wd.outputs.push(kp.stdout + kp.stderr);
    expect({ status: kp.status, out: kp.status === 0 ? '' : kp.stdout.slice(-3000) + kp.stderr }).toEqual({ status: 0, out: '' });

    const clean = await tfIn(stackDir, ['plan', '-input=false', '-detailed-exitcode']);
    expect({ code: clean.code, noChanges: clean.out.includes('No changes.') }).toEqual({ code: 0, noChanges: true });
    await raw('auth/cloud/role/web', { token_ttl: 60 });
    const drift = await tfIn(stackDir, ['plan', '-input=false', '-detailed-exitcode']);
    expect(drift.code).toBe(2);
    expect(drift.out).toMatch(/~ token_ttl\s+= "60" -> "1h"/);
    await okIn(stackDir, 'apply', '-input=false', '-auto-approve');
    expect(vault.gcp.get('cloud')!.roles.get('web')).toMatchObject({ token_ttl: 3600 });

    // Vault rotates the root key: no drift.
    vault.rotateKey('cloud');
    const rotated = await tfIn(stackDir, ['plan', '-input=false', '-detailed-exitcode']);
    expect({ code: rotated.code, noChanges: rotated.out.includes('No changes.') }).toEqual({ code: 0, noChanges: true });

    expect(await okIn(stackDir, 'destroy', '-input=false', '-auto-approve')).toContain('Destroy complete! Resources: 5 destroyed.');
    expect(vault.mounts.has('cloud')).toBe(false);
    expect(vault.snapshots.size).toBe(0);
    expect(vault.problems).toEqual([]);
    expectNoSecrets(appDir, wd.outputs);
  }, 600_000);
});

/** No secret value in any file under root (state, backups, cdktf.out, plan files unzipped) nor any output. */
function expectNoSecrets(root: string, outputs: string[]): void {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (e === 'node_modules' || e === '.terraform') continue;
      if (statSync(p).isDirectory()) walk(p);
      else files.push(p);
    }
  };
  walk(root);
  expect(files.some((f) => /\.tfstate$/.test(f))).toBe(true);
  const texts = files.map((f) => ({ f, text: readFileSync(f) }));
  for (const f of files.filter((x) => /(^|\/)tfplan$/.test(x))) {
    const unzipped = spawnSync('unzip', ['-p', f]).stdout;
    expect(unzipped.length).toBeGreaterThan(0);
    texts.push({ f: `${f} (unzipped)`, text: unzipped });
  }
  for (const [what, value] of Object.entries(SECRETS)) {
    for (const t of texts) expect({ file: t.f, what, found: t.text.includes(value) }).toEqual({ file: t.f, what, found: false });
    expect({ what, inOutput: outputs.some((o) => o.includes(value)) }).toEqual({ what, inOutput: false });
  }
}
