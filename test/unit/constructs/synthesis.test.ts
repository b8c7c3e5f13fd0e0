// Synthesis with cdktf's Testing helpers: the keyward provider block and its required_providers
// entry, one keyward_cloud_auth_backend per mount with its roles as a map, snapshot configs,
// secrets as env references or write-only attributes, and the files written next to cdk.tf.json
// (the manifest and the provider launcher).

import { Testing, TerraformOutput, TerraformStack, TerraformVariable } from 'cdktf';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CloudAuthBackend, CloudAuthRole, KeywardServer, RemovalPolicy, SnapshotAutoConfig, SnapshotStorage } from '../../../constructs';
import { LAUNCHER_SCRIPT, launcherHash, packageVersion, terraformPlatform } from '../../../constructs/launcher';
import { MANIFEST_FILE_NAME, fingerprintSecret, parseManifest } from '../../../src/schema/manifest';
import { newStack, serviceAccountKeyJson, withEnv } from './fixtures';

const CREDS = serviceAccountKeyJson();
const S3_SECRET = 's3-secret-value-for-synthesis-test';
withEnv({ KW_SYN_CREDS: CREDS, KW_SYN_S3: S3_SECRET });

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function build(opts: { ttl?: string; retainSnapshots?: boolean; exclusive?: boolean } = {}) {
  const { stack, server } = newStack('prod');
  const backend = new CloudAuthBackend(stack, 'cloud', {
    server,
    path: 'gcp',
    description: 'workloads',
    config: { credentials: CREDS, vmAlias: 'instance_id' },
    exclusiveRoles: opts.exclusive,
  });
  CloudAuthRole.iam(stack, 'Web', { backend, boundServiceAccounts: ['web@p.iam.gserviceaccount.com'], tokenTtl: opts.ttl ?? '1h', tokenPolicies: ['web'] });
  CloudAuthRole.vm(stack, 'batch', { backend, boundZones: ['europe-west1-b'], boundLabels: { tier: 'batch', env: 'prod' } });
  const azureKey = new TerraformVariable(stack, 'azure_key', { type: 'string', sensitive: true });
  new SnapshotAutoConfig(stack, 'hourly', {
    server,
    interval: '1h',
    retain: 24,
    pathPrefix: 'snaps/',
    storage: SnapshotStorage.cloudOne({ bucket: 'b', region: 'eu-west-1', accessKeyId: 'AKIA', secretAccessKey: S3_SECRET }),
    removalPolicy: opts.retainSnapshots ? RemovalPolicy.RETAIN : undefined,
  });
  new SnapshotAutoConfig(stack, 'azure', {
    server,
    interval: 86400,
    pathPrefix: 'a/',
    storage: SnapshotStorage.cloudThree({ containerName: 'c', accountName: 'acct', accountKey: azureKey.stringValue }),
  });
  return { stack, server };
}

const synthJson = (stack: ReturnType<typeof build>['stack']): Json => JSON.parse(Testing.synth(stack)) as Json;
const only = (group: Json | undefined): Json => {
  const values = Object.values(group ?? {});
  expect(values).toHaveLength(1);
  return values[0] as Json;
};

describe('stack synthesis', () => {
  it('declares the keyward provider (source, package version) and its provider block, no terraform_data', () => {
    const tf = synthJson(build().stack);
    expect(tf.terraform.required_providers).toEqual({ keyward: { source: 'keyward/keyward', version: packageVersion() } });
    expect(tf.provider.keyward).toEqual([{ address: 'http://127.0.0.1:8200', fingerprint_salt: expect.stringMatching(/^[0-9a-f]{32}$/) }]);
    expect(Object.keys(tf.resource).sort()).toEqual(['keyward_cloud_auth_backend', 'keyward_snapshot_auto_config']);
    expect(JSON.stringify(tf)).not.toContain('local-exec');
  });

  it('synthesizes one backend resource with config and roles keyed by role name', () => {
    const tf = synthJson(build().stack);
    const b = only(tf.resource.keyward_cloud_auth_backend);
    expect(b).toMatchObject({ path: 'gcp', description: 'workloads' });
    expect(b.exclusive_roles).toBeUndefined();
    expect(b.retain_on_destroy).toBeUndefined();
    expect(b.config).toEqual({ credentials_env: 'KW_SYN_CREDS', vm_alias: 'instance_id' });
    expect(b.roles).toEqual({
      web: { type: 'iam', bound_service_accounts: ['web@p.iam.gserviceaccount.com'], token_ttl: '1h', token_policies: ['web'] },
      batch: { type: 'vm', bound_zones: ['europe-west1-b'], bound_labels: { env: 'prod', tier: 'batch' } },
    });
    expect(only(synthJson(build({ exclusive: true }).stack).resource.keyward_cloud_auth_backend).exclusive_roles).toBe(true);
  });

  it('leaves `roles` out of a backend without roles (Terraform refuses an empty map block in JSON)', () => {
    // Roles declared elsewhere (keyward_cloud_auth_role resources) or none yet: `"roles": {}` made
    // terraform fail with "Missing block label".
    const { stack, server } = newStack('noroles');
    new CloudAuthBackend(stack, 'cloud', { server, path: 'gcp' });
    const b = only(synthJson(stack).resource.keyward_cloud_auth_backend);
    expect(b).toEqual({ path: 'gcp' });
  });

  it("exposes the backend accessor and a role's role_id as tokens of the backend resource", () => {
    const { stack, server } = newStack('tokens');
    const backend = new CloudAuthBackend(stack, 'cloud', { server, path: 'gcp' });
    const role = CloudAuthRole.iam(stack, 'Web', { backend, boundServiceAccounts: ['web@p.iam.gserviceaccount.com'] });
    new TerraformOutput(stack, 'accessor', { value: backend.accessor });
    new TerraformOutput(stack, 'role_id', { value: role.roleId });
    const tf = synthJson(stack);
    const [address] = Object.keys(tf.resource.keyward_cloud_auth_backend as Json);
    expect(tf.output.accessor.value).toBe(`\${keyward_cloud_auth_backend.${address}.accessor}`);
    expect(tf.output.role_id.value).toBe(`\${keyward_cloud_auth_backend.${address}.roles["web"].role_id}`);
  });

  it('synthesizes snapshot configs with env secrets and write-only variable secrets', () => {
    const tf = synthJson(build({ retainSnapshots: true }).stack);
    const configs = Object.values(tf.resource.keyward_snapshot_auto_config as Json) as Json[];
    const hourly = configs.find((c) => c.name === 'hourly')!;
    const azure = configs.find((c) => c.name === 'azure')!;
    expect(hourly).toEqual({
      name: 'hourly',
      storage_type: 'cloudone-store',
      interval: '1h',
      retain: 24,
      path_prefix: 'snaps/',
      cloudone_bucket: 'b',
      cloudone_region: 'eu-west-1',
      cloudone_access_key_id: 'AKIA',
      cloudone_secret_access_key_env: 'KW_SYN_S3',
      retain_on_destroy: true,
    });
    expect(azure).toMatchObject({ cloudthree_account_key_wo: '${var.azure_key}', cloudthree_account_key_wo_version: 1 });
    expect(azure.retain_on_destroy).toBeUndefined();
    expect(tf.variable.azure_key).toMatchObject({ sensitive: true });
  });

  it('adds keyward_exclusive_snapshot_configs with the declared names, and the connection props', () => {
    expect(synthJson(build().stack).resource.keyward_exclusive_snapshot_configs).toBeUndefined();
    const stack = new TerraformStack(Testing.app(), 'x');
    const server = new KeywardServer(stack, 'server', { exclusiveSnapshotConfigs: true, caCertFile: '/etc/ca.pem', skipTlsVerify: true, namespace: 'team' });
    new SnapshotAutoConfig(stack, 'daily', { server, interval: '24h', pathPrefix: '/snaps', storage: SnapshotStorage.local({ maxSpaceBytes: 1000 }) });
    const tf = synthJson(stack);
    expect(only(tf.resource.keyward_exclusive_snapshot_configs)).toMatchObject({ names: ['daily'] });
    expect(tf.provider.keyward[0]).toEqual({ namespace: 'team', ca_cert_file: '/etc/ca.pem', skip_tls_verify: true, fingerprint_salt: expect.any(String) });
  });

  it('bumps write-only secret versions with secretVersion', () => {
    const stack = new TerraformStack(Testing.app(), 'v');
    const server = new KeywardServer(stack, 'server', { secretVersion: 3 });
    const creds = new TerraformVariable(stack, 'creds', { type: 'string', sensitive: true });
    new CloudAuthBackend(stack, 'cloud', { server, config: { credentials: creds.stringValue } });
    expect(only(synthJson(stack).resource.keyward_cloud_auth_backend).config).toEqual({ credentials_wo: '${var.creds}', credentials_wo_version: 3 });
  });

  it('puts nothing secret in cdk.tf.json', () => {
    const synth = Testing.synth(build().stack);
    expect(synth).not.toContain(S3_SECRET);
    expect(synth).not.toContain(JSON.parse(CREDS).private_key.split('\n')[2]);
  });

  it('keeps the manifest for keyward plan/apply --dir (a valid manifest once tokens resolve)', () => {
    const outdir = Testing.fullSynth(build().stack);
    const m = parseManifest(JSON.parse(readFileSync(join(outdir, 'stacks', 'prod', MANIFEST_FILE_NAME), 'utf8')));
    expect(m.stack).toBe('prod');
    const gcp = m.authBackends[0];
    expect(gcp.config?.credentials).toEqual({ secretRef: { env: 'KW_SYN_CREDS', fingerprint: fingerprintSecret(m.fingerprintSalt, CREDS) } });
    expect(gcp.roles.map((r) => r.name)).toEqual(['web', 'batch']);
    expect(m.snapshotConfigs[1]).toMatchObject({ name: 'azure', cloudthree_account_key: { secretRef: { env: 'TF_VAR_azure_key' } } });
  });

  it('synthesizes a keyless (WIF) config with the engine-only sts and iamcredentials endpoints into cdk.tf.json and a valid manifest', () => {
    const stack = new TerraformStack(Testing.app(), 'wif');
    const server = new KeywardServer(stack, 'server', {});
    const eps = { api: 'http://127.0.0.1:8290', iam: 'http://127.0.0.1:8290', sts: 'http://127.0.0.1:8291', iamcredentials: 'http://127.0.0.1:8292/v1' };
    new CloudAuthBackend(stack, 'keyless', {
      server,
      path: 'keyless',
      config: {
        serviceAccountEmail: 'engine@ops.iam.gserviceaccount.com',
        identityTokenAudience: 'https://iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/e',
        customEndpoints: eps,
      },
    });
    const tf = JSON.parse(Testing.synth(stack)) as Json;
    expect(only(tf.resource.keyward_cloud_auth_backend).config.custom_endpoint).toEqual(eps);
    const outdir = Testing.fullSynth(stack);
    const m = parseManifest(JSON.parse(readFileSync(join(outdir, 'stacks', 'wif', MANIFEST_FILE_NAME), 'utf8')));
    expect(m.authBackends[0].config).toMatchObject({ service_account_email: 'engine@ops.iam.gserviceaccount.com', custom_endpoint: eps });
  });

  it('resolves string, number and list tokens in the manifest, and leaves token-free parts as written', () => {
    const stack = new TerraformStack(Testing.app(), 'tok');
    const server = new KeywardServer(stack, 'server', {});
    const desc = new TerraformVariable(stack, 'desc', { type: 'string' });
    const ttl = new TerraformVariable(stack, 'ttl', { type: 'number' });
    const policies = new TerraformVariable(stack, 'policies', { type: 'list(string)' });
    const backend = new CloudAuthBackend(stack, 'cloud', { server, description: desc.stringValue });
    CloudAuthRole.iam(stack, 'web', { backend, boundServiceAccounts: ['a@p.iam.gserviceaccount.com'], tokenTtl: ttl.numberValue, tokenPolicies: policies.listValue });
    CloudAuthRole.iam(stack, 'plain', { backend, boundServiceAccounts: ['b@p.iam.gserviceaccount.com'], tokenTtl: '1h', tokenPolicies: ['default'] });
    const outdir = Testing.fullSynth(stack);
    const m = JSON.parse(readFileSync(join(outdir, 'stacks', 'tok', MANIFEST_FILE_NAME), 'utf8')) as Json;
    const b = m.authBackends[0];
    expect(b.description).toBe('${var.desc}');
    expect(b.roles[0]).toMatchObject({ name: 'web', token_ttl: '${var.ttl}', token_policies: '${var.policies}' });
    expect(b.roles[1]).toEqual({ name: 'plain', type: 'iam', bound_service_accounts: ['b@p.iam.gserviceaccount.com'], token_ttl: '1h', token_policies: ['default'] });
  });

  it('writes the launcher into the implied local mirror, and no secret anywhere in the output', () => {
    const outdir = Testing.fullSynth(build().stack);
    const stackDir = join(outdir, 'stacks', 'prod');
    expect(readdirSync(stackDir).sort()).toEqual(['.terraform.lock.hcl', 'cdk.tf.json', MANIFEST_FILE_NAME, 'terraform.d']);
    // The lock entry carries the launcher's hash, so cdktf's first init never asks the registry.
    expect(readFileSync(join(stackDir, '.terraform.lock.hcl'), 'utf8')).toContain(launcherHash());
    const v = packageVersion();
    const launcher = join(stackDir, 'terraform.d', 'plugins', 'registry.terraform.io', 'keyward', 'keyward', v, terraformPlatform(), `terraform-provider-keyward_v${v}`);
    expect(readFileSync(launcher, 'utf8')).toBe(LAUNCHER_SCRIPT);
    expect(statSync(launcher).mode & 0o777).toBe(0o755);
    const walk = (d: string): string[] => readdirSync(d).flatMap((e) => (statSync(join(d, e)).isDirectory() ? walk(join(d, e)) : [join(d, e)]));
    for (const f of walk(outdir)) {
      const text = readFileSync(f, 'utf8');
      expect(text).not.toContain(S3_SECRET);
      expect(text).not.toContain(JSON.parse(CREDS).private_key.slice(40, 80));
    }
  });
});
