// Synthesis with cdktf's Testing helpers: the two built-in terraform_data resources, their
// provisioners, the redacted input, the digest, and the manifest written next to cdk.tf.json.

import { Testing, TerraformVariable } from 'cdktf';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CloudAuthBackend, CloudAuthRole, RemovalPolicy, SnapshotAutoConfig, SnapshotStorage } from '../../../constructs';
import { resolveKeywardBin } from '../../../constructs/keyward-command';
import { MANIFEST_FILE_NAME, fingerprintSecret, parseManifest } from '../../../src/schema/manifest';
import { newStack, serviceAccountKeyJson, withEnv } from './fixtures';

const CREDS = serviceAccountKeyJson();
const S3_SECRET = 's3-secret-value-for-synthesis-test';
withEnv({ KW_SYN_CREDS: CREDS, KW_SYN_S3: S3_SECRET });

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function build(opts: { ttl?: string; retainSnapshots?: boolean } = {}) {
  const { stack, server } = newStack('prod');
  const backend = new CloudAuthBackend(stack, 'cloud', { server, path: 'gcp', description: 'workloads', config: { credentials: CREDS, vmAlias: 'instance_id' } });
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
  new SnapshotAutoConfig(stack, 'azure', { server, interval: 86400, pathPrefix: 'a/', storage: SnapshotStorage.cloudThree({ containerName: 'c', accountName: 'acct', accountKey: azureKey.stringValue }) });
  return { stack, server };
}

function resources(stack: ReturnType<typeof build>['stack']): { apply: Json; teardown: Json; all: Json } {
  const tf = JSON.parse(Testing.synth(stack)) as Json;
  const data = tf.resource.terraform_data as Json;
  const name = (part: string) => Object.keys(data).find((k) => k.includes(part)) as string;
  return { apply: data[name('keyward-apply')], teardown: data[name('keyward-teardown')], all: tf };
}

describe('stack synthesis', () => {
  it('synthesizes two built-in terraform_data resources and no provider', () => {
    const { stack } = build();
    const synth = Testing.synth(stack);
    expect(Testing.toHaveResource(synth, 'terraform_data')).toBe(true);
    const { all, apply } = resources(stack);
    expect(Object.keys(all.resource)).toEqual(['terraform_data']);
    expect(Object.keys(all.resource.terraform_data)).toHaveLength(2);
    expect(all.provider).toBeUndefined();
    expect(apply.depends_on).toEqual([expect.stringMatching(/^terraform_data\.server_keyward-teardown_/)]);
  });

  it('puts the redacted desired state in input, a valid manifest once tokens resolve', () => {
    const { apply } = resources(build().stack);
    const m = parseManifest(apply.input);
    expect(m.stack).toBe('prod');
    expect(m.server).toEqual({ address: 'http://127.0.0.1:8200' });
    const gcp = m.authBackends[0];
    expect(gcp).toMatchObject({ path: 'gcp', type: 'cloud', description: 'workloads', exclusiveRoles: false });
    expect(gcp.config).toEqual({
      credentials: { secretRef: { env: 'KW_SYN_CREDS', fingerprint: fingerprintSecret(m.fingerprintSalt, CREDS) } },
      vm_alias: 'instance_id',
    });
    expect(gcp.roles).toEqual([
      { name: 'web', type: 'iam', bound_service_accounts: ['web@p.iam.gserviceaccount.com'], token_ttl: '1h', token_policies: ['web'] },
      { name: 'batch', type: 'vm', bound_zones: ['europe-west1-b'], bound_labels: ['env:prod', 'tier:batch'] },
    ]);
    expect(m.snapshotConfigs[0]).toMatchObject({
      name: 'hourly',
      storage_type: 'cloudone-store',
      cloudone_secret_access_key: { secretRef: { env: 'KW_SYN_S3', fingerprint: fingerprintSecret(m.fingerprintSalt, S3_SECRET) } },
    });
    // A variable secret: referenced by its TF_VAR_ name, fingerprint computed by keyward at apply time.
    expect(m.snapshotConfigs[1]).toMatchObject({ name: 'azure', cloudthree_account_key: { secretRef: { env: 'TF_VAR_azure_key' } } });
  });

  it('passes secrets only through the provisioner environment', () => {
    const { stack } = build();
    const synth = Testing.synth(stack);
    expect(synth).not.toContain(S3_SECRET);
    expect(synth).not.toContain(JSON.parse(CREDS).private_key.split('\n')[2]);
    const { apply } = resources(stack);
    const [create, destroy] = apply.provisioner.map((p: Json) => p['local-exec']);
    expect(create.when).toBeUndefined();
    expect(create.environment).toEqual({ KEYWARD_DESIRED: '${jsonencode(self.input)}', KEYWARD_INSTANCE: '${self.id}', TF_VAR_azure_key: '${var.azure_key}' });
    expect(create.command).toContain(`node '${resolveKeywardBin()}' apply --manifest keyward.desired.json --last-applied keyward.last-applied.json`);
    expect(destroy.when).toBe('destroy');
    expect(destroy.environment).toEqual({ KEYWARD_PREVIOUS: '${jsonencode(self.input)}', KEYWARD_INSTANCE: '${self.id}' });
    expect(apply.triggers_replace.secrets).toEqual({ TF_VAR_azure_key: expect.stringMatching(/^\$\{sha256\("[0-9a-f]+:\$\{var\.azure_key\}"\)\}$/) });
  });

  it('keeps the digest stable across synths and changes it with any field', () => {
    const a = resources(build().stack).apply.triggers_replace.digest;
    const b = resources(build().stack).apply.triggers_replace.digest;
    const c = resources(build({ ttl: '2h' }).stack).apply.triggers_replace.digest;
    expect(a).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(b).toBe(a);
    expect(c).not.toBe(a);
  });

  it('leaves objects with RemovalPolicy.RETAIN out of the teardown resource', () => {
    const { teardown, apply } = resources(build({ retainSnapshots: true }).stack);
    expect(teardown.input.snapshotConfigs.map((s: Json) => s.name)).toEqual(['azure']);
    expect(apply.input.snapshotConfigs.map((s: Json) => s.name)).toEqual(['hourly', 'azure']);
    expect(teardown.triggers_replace).toBeUndefined();
    expect(teardown.provisioner[0]['local-exec']).toMatchObject({ when: 'destroy', environment: { KEYWARD_MANAGED: '${jsonencode(self.input)}' } });
    expect(teardown.provisioner[0]['local-exec'].command).toContain('destroy --manifest keyward.managed.json');
  });

  it('writes the manifest next to cdk.tf.json, with no secret anywhere in the output', () => {
    const outdir = Testing.fullSynth(build().stack);
    const stackDir = join(outdir, 'stacks', 'prod');
    expect(readdirSync(stackDir).sort()).toEqual(['cdk.tf.json', MANIFEST_FILE_NAME]);
    const m = parseManifest(JSON.parse(readFileSync(join(stackDir, MANIFEST_FILE_NAME), 'utf8')));
    expect(m.authBackends[0].roles.map((r) => r.name)).toEqual(['web', 'batch']);
    const walk = (d: string): string[] => readdirSync(d).flatMap((e) => (statSync(join(d, e)).isDirectory() ? walk(join(d, e)) : [join(d, e)]));
    for (const f of walk(outdir)) {
      const text = readFileSync(f, 'utf8');
      expect(text).not.toContain(S3_SECRET);
      expect(text).not.toContain(JSON.parse(CREDS).private_key_id + JSON.parse(CREDS).private_key.slice(40, 80));
      expect(text).not.toContain(JSON.parse(CREDS).private_key.slice(40, 80));
    }
  });
});
