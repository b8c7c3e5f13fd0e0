// Roles through `cdktf get`-generated bindings (how Python, Go, Java and C# cdktf users consume a
// provider), offline, with real terraform against the engine: `cdktf get keyward/keyward` installs
// the provider from the implied local mirror (~/.terraform.d/plugins, as `keyward terraform install`
// writes it), the generated CloudAuthRole has a setter per role field, a stack declares roles
// through the generated classes (props and setters), deploys, re-plans empty, changes one role
// through a setter, and removes one, which Terraform plans as a destroy with keyward's warning.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeLauncher } from '../../constructs/launcher';
import { api, ROOT_TOKEN, startTestEngine } from '../support/engine';
import { runAsync } from '../support/run-async';
import { requireProviderBin } from '../support/provider-bin';
import { cdktfEnv } from '../support/cdktf-env';

const REPO = resolve(__dirname, '../..');
const CDKTF = join(REPO, 'node_modules', '.bin', 'cdktf');
const TSX = join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

// Written into the app: it imports the bindings `cdktf get` generated in .gen.
const MAIN = `import { readFileSync } from 'node:fs';
import { App, TerraformOutput, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { KeywardProvider } from './.gen/providers/keyward/provider';
import { CloudAuthBackend } from './.gen/providers/keyward/cloud-auth-backend';
import { CloudAuthRole } from './.gen/providers/keyward/cloud-auth-role';

const s = JSON.parse(readFileSync(process.env.KW_SCENARIO!, 'utf8')) as { batchTtl: string; batch: boolean };

class Bindings extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new KeywardProvider(this, 'keyward', { address: process.env.VAULT_ADDR, fingerprintSalt: 'bindings-e2e-salt-0123456789' });
    const backend = new CloudAuthBackend(this, 'cloud', { path: 'bindings', description: 'roles from generated bindings' });
    const web = new CloudAuthRole(this, 'web', {
      backend: backend.path,
      name: 'web',
      type: 'iam',
      boundServiceAccounts: ['app@proj-a.iam.gserviceaccount.com'],
      tokenTtl: '1h',
      tokenPolicies: ['read', 'write'],
    });
    new TerraformOutput(this, 'web_role_id', { value: web.roleId });
    if (s.batch) {
      const batch = new CloudAuthRole(this, 'batch', { backend: backend.path, name: 'batch', type: 'vm', boundZones: ['europe-west1-b'] });
      batch.tokenTtl = s.batchTtl;
      batch.boundLabels = { env: 'prod' };
    }
  }
}

const app = new App();
new Bindings(app, 'bindings');
app.synth();
`;

describe('cdktf get bindings declare and deploy roles (offline)', () => {
  let engine: Awaited<ReturnType<typeof startTestEngine>>;
  let root: string;
  let dir: string;
  const outputs: string[] = [];

  beforeAll(async () => {
    requireProviderBin();
    engine = await startTestEngine();
    root = mkdtempSync(join(tmpdir(), 'keyward-bindings-'));
    dir = join(root, 'app');
    // The implied local mirror of this HOME, as `keyward terraform install` writes it.
    writeLauncher(join(root, 'home', '.terraform.d', 'plugins'));
    mkdirSync(join(dir, 'node_modules'), { recursive: true });
    symlinkSync(REPO, join(dir, 'node_modules', 'keyward'), 'dir');
    for (const m of ['cdktf', 'constructs']) symlinkSync(join(REPO, 'node_modules', m), join(dir, 'node_modules', m), 'dir');
    // `cdktf get` runs terraform in a directory under the temp dir: inside the app, the provider
    // launcher finds node_modules/keyward from there as it does from the stack's directory.
    mkdirSync(join(dir, 'tmp'));
    writeFileSync(join(root, 'empty.tfrc'), '');
    writeFileSync(
      join(dir, 'cdktf.json'),
      JSON.stringify({
        language: 'typescript',
        app: `node ${TSX} main.ts`,
        terraformProviders: [`keyward/keyward@${VERSION}`],
        codeMakerOutput: '.gen',
        projectId: 'keyward-bindings',
        sendCrashReports: 'false',
      }),
    );
    writeFileSync(join(dir, 'main.ts'), MAIN);
  });
  afterAll(async () => {
    await engine?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const env = (): NodeJS.ProcessEnv =>
    cdktfEnv(
      { url: engine.url, token: ROOT_TOKEN },
      {
        HOME: join(root, 'home'),
        TMPDIR: join(dir, 'tmp'),
        TF_CLI_CONFIG_FILE: join(root, 'empty.tfrc'),
        KW_SCENARIO: join(dir, 'scenario.json'),
      },
    );
  const run = async (file: string, args: string[], cwd = dir) => {
    const r = await runAsync(file, args, { cwd, env: env() });
    const out = (r.stdout + r.stderr).replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex
    outputs.push(out);
    return { code: r.status, out };
  };
  const ok = async (file: string, args: string[], cwd = dir) => {
    const r = await run(file, args, cwd);
    expect({ args, code: r.code, tail: r.code === 0 ? '' : r.out.slice(-4000) }).toEqual({ args, code: 0, tail: '' });
    return r.out;
  };
  const scenario = (s: { batchTtl: string; batch: boolean }) => writeFileSync(join(dir, 'scenario.json'), JSON.stringify(s));
  const stackDir = () => join(dir, 'cdktf.out', 'stacks', 'bindings');
  /** terraform plan in the synthesized stack: 0 = no changes, 2 = changes. */
  const plan = () => run('terraform', ['plan', '-detailed-exitcode', '-no-color', '-input=false'], stackDir());
  const role = async (name: string) => (await api(engine, 'GET', `auth/bindings/role/${name}`)).body.data as Record<string, unknown> | undefined;

  it('generates a role resource with setters, deploys roles declared through it, re-plans empty', async () => {
    await ok(CDKTF, ['get']);
    const generated = readFileSync(join(dir, '.gen', 'providers', 'keyward', 'cloud-auth-role', 'index.ts'), 'utf8');
    for (const setter of ['backend', 'name', 'type', 'boundServiceAccounts', 'tokenTtl', 'boundLabels']) expect(generated).toContain(`public set ${setter}(`);

    scenario({ batchTtl: '30m', batch: true });
    await ok(CDKTF, ['deploy', '--auto-approve', '--skip-provider-lock']);
    expect(await role('web')).toMatchObject({ type: 'iam', token_ttl: 3600, token_policies: ['read', 'write'] });
    expect(await role('batch')).toMatchObject({ type: 'vm', token_ttl: 1800, bound_zones: ['europe-west1-b'], bound_labels: { env: 'prod' } });
    const noop = await plan();
    expect({ code: noop.code, out: noop.code === 0 ? '' : noop.out.slice(-3000) }).toEqual({ code: 0, out: '' });

    // One field through a setter: one role updated in place.
    scenario({ batchTtl: '2h', batch: true });
    const changed = await ok(CDKTF, ['deploy', '--auto-approve', '--skip-provider-lock']);
    expect(changed).toMatch(/0 added, 1 changed, 0 destroyed/);
    expect(await role('batch')).toMatchObject({ token_ttl: 7200 });
    expect((await plan()).code).toBe(0);

    // A removed role resource is a destroy, with the warning saying what it costs.
    scenario({ batchTtl: '2h', batch: false });
    await ok(CDKTF, ['synth']);
    const removal = await plan();
    expect(removal.code).toBe(2);
    expect(removal.out).toMatch(/0 to add, 0 to change, 1 to destroy/);
    expect(removal.out).toContain('Role "batch" will be deleted from auth/bindings');
    await ok(CDKTF, ['deploy', '--auto-approve', '--skip-provider-lock']);
    expect(await role('batch')).toBeUndefined();
    expect(await role('web')).toMatchObject({ type: 'iam' });
    expect((await plan()).code).toBe(0);
    for (const out of outputs) expect(out).not.toContain(ROOT_TOKEN);
  }, 600_000);
});
