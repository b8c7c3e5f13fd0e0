// The HCL examples the reference pages embed (examples/provider/provider.tf and every
// examples/resources/<type>/resource.tf) applied together with the real terraform CLI (1.11,
// offline) against the embedded engine, then re-planned empty; each examples/resources/<type>/
// import.sh run as written re-imports its object. The same working directory shows that
// `terraform providers schema -json` gives every attribute and block a markdown description.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../../src/engine/engine';
import { keywardProvider } from '../../src/terraform/keyward-provider';
import { serviceAccountKeyJson } from '../unit/constructs/fixtures';
import { api, ROOT_TOKEN, startTestEngine } from '../support/engine';
import { REPO, terraformWorkdir, type TerraformWorkdir } from '../support/terraform-workdir';

const CREDENTIALS = serviceAccountKeyJson('deployer@my-project.iam.gserviceaccount.com');
const S3_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY-examples-e2e';
const EXAMPLES = join(REPO, 'examples');
const RESOURCE_TYPES = readdirSync(join(EXAMPLES, 'resources'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

interface SchemaBlock {
  description?: string;
  description_kind?: string;
  attributes?: Record<string, { description?: string; description_kind?: string }>;
  block_types?: Record<string, { block: SchemaBlock }>;
}

function undescribed(where: string, b: SchemaBlock): string[] {
  return [
    ...(b.description && b.description_kind === 'markdown' ? [] : [where]),
    ...Object.entries(b.attributes ?? {}).flatMap(([n, a]) => (a.description && a.description_kind === 'markdown' ? [] : [`${where}.${n}`])),
    ...Object.entries(b.block_types ?? {}).flatMap(([n, t]) => undescribed(`${where}.${n}`, t.block)),
  ];
}

describe('the HCL examples, applied with terraform against the embedded engine', () => {
  let engine: Engine;
  let w: TerraformWorkdir;
  const env = () => ({
    VAULT_ADDR: engine.url,
    VAULT_TOKEN: ROOT_TOKEN,
    VAULT_NAMESPACE: '',
    KEYWARD_DIALECT: '',
    TF_VAR_fingerprint_salt: 'examples-e2e-salt-0123456789abcdef',
    CLOUD_AUTH_CREDENTIALS: CREDENTIALS,
    SNAPSHOT_S3_SECRET_ACCESS_KEY: S3_SECRET,
  });
  const planEmpty = async () => {
    const r = await w.tf(['plan', '-input=false', '-detailed-exitcode']);
    expect({ code: r.code, noChanges: r.out.includes('No changes.'), out: r.code === 0 ? '' : r.out.slice(-3000) }).toEqual({ code: 0, noChanges: true, out: '' });
  };

  beforeAll(async () => {
    engine = await startTestEngine();
    w = terraformWorkdir('keyward-tf-examples-', env);
    // As a user copies them: the provider file (with their server's address, which wins over
    // VAULT_ADDR), then each resource example as its own file.
    const provider = readFileSync(join(EXAMPLES, 'provider', 'provider.tf'), 'utf8');
    expect(provider).toContain('"https://vault.example.com:8200"');
    w.write('provider.tf', provider.replace('https://vault.example.com:8200', engine.url));
    for (const t of RESOURCE_TYPES) w.write(`${t}.tf`, readFileSync(join(EXAMPLES, 'resources', t, 'resource.tf'), 'utf8'));
  }, 60_000);
  afterAll(async () => {
    w?.close();
    await engine?.close();
  });

  it('every resource the provider registers has an example (add examples/resources/<type>/resource.tf, then npm run docs:generate)', () => {
    expect(RESOURCE_TYPES).toEqual(
      keywardProvider({ env: {} })
        .resources.map((r) => r.typeName)
        .sort(),
    );
  });

  it('init, then `terraform providers schema -json` describes every attribute and block in markdown', async () => {
    await w.ok(['init', '-input=false']);
    const out = await w.ok(['providers', 'schema', '-json']);
    const s = JSON.parse(out.slice(out.indexOf('{'))).provider_schemas['registry.terraform.io/keyward/keyward'];
    const missing = [
      undescribed('provider', s.provider.block),
      ...Object.entries(s.resource_schemas as Record<string, { block: SchemaBlock }>).map(([t, r]) => undescribed(t, r.block)),
    ].flat();
    expect(missing).toEqual([]);
    expect(Object.keys(s.resource_schemas).sort()).toEqual(
      keywardProvider({ env: {} })
        .resources.map((r) => r.typeName)
        .sort(),
    );
  }, 120_000);

  it('validates, applies and re-plans empty', async () => {
    await w.ok(['validate']);
    const apply = await w.ok(['apply', '-input=false', '-auto-approve']);
    expect(apply).toMatch(/Apply complete! Resources: \d+ added, 0 changed, 0 destroyed\./);
    await planEmpty();

    const ci = await api(engine, 'GET', 'auth/cloud/role/ci');
    expect(ci.status).toBe(200);
    expect(ci.body.data).toMatchObject({ type: 'iam', bound_service_accounts: ['ci@my-project.iam.gserviceaccount.com'], token_ttl: 3600, max_jwt_exp: 1800 });
    const web = await api(engine, 'GET', 'auth/cloud/role/web');
    expect(web.body.data).toMatchObject({ type: 'vm', bound_zones: ['europe-west1-b'], bound_labels: { app: 'web' } });
    const config = await api(engine, 'GET', 'auth/cloud/config');
    expect(config.body.data).toMatchObject({ iam_alias: 'unique_id' });
    const local = await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/config/hourly');
    expect(local.body.data).toMatchObject({ storage_type: 'local', retain: 24, local_max_space: 10737418240 });
    const s3 = await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/config/daily-s3');
    expect(s3.body.data).toMatchObject({ storage_type: 'cloudone-store', cloudone_bucket: 'vault-snapshots', cloudone_region: 'eu-west-1' });
    expect(JSON.stringify(s3.body.data)).not.toContain(S3_SECRET);
  }, 240_000);

  it('each import.sh, run as written after the object left the state, imports it back', async () => {
    const imports = RESOURCE_TYPES.flatMap((t) => {
      let text: string;
      try {
        text = readFileSync(join(EXAMPLES, 'resources', t, 'import.sh'), 'utf8');
      } catch {
        return [];
      }
      return text
        .split('\n')
        .filter((l) => l.startsWith('terraform import '))
        .map((l) => l.trim().split(/\s+/).slice(1));
    });
    expect(imports.map((a) => a[1]!.split('.')[0])).toEqual(expect.arrayContaining(['keyward_cloud_auth_backend', 'keyward_snapshot_auto_config']));
    for (const args of imports) {
      await w.ok(['state', 'rm', args[1]!]);
      await w.ok(args);
    }
    // Secrets cannot be read back: the imported backend's credentials_env plans one update (the
    // fingerprint), as import.sh says; everything else matches the declaration.
    const plan = await w.tf(['plan', '-input=false', '-detailed-exitcode']);
    expect({ code: plan.code, summary: /Plan: .*/.exec(plan.out)?.[0] }).toEqual({ code: 2, summary: 'Plan: 0 to add, 1 to change, 0 to destroy.' });
    expect(plan.out).toContain('keyward_cloud_auth_backend.example will be updated in-place');
    await w.ok(['apply', '-input=false', '-auto-approve']);
    await planEmpty();
  }, 240_000);

  it('no secret in state or in anything terraform printed', () => {
    const state = readFileSync(join(w.dir, 'terraform.tfstate'), 'utf8');
    for (const text of [state, ...w.outputs]) {
      expect(text.includes(S3_SECRET)).toBe(false);
      expect(text.includes(JSON.parse(CREDENTIALS).private_key)).toBe(false);
    }
  });

  it('destroys', async () => {
    await w.ok(['destroy', '-input=false', '-auto-approve']);
    expect((await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/config/hourly')).status).toBe(404);
  }, 240_000);
});
