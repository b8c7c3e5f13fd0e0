// CDK Terrain: a cdktn app (its package.json names only cdktn) driven by the real `cdktn` CLI
// (cdktn-cli 0.24, which needs Node >= 22) as a cdktn user runs it: Node 22 first on PATH for the
// CLI, the app and keyward's provider launcher, terraform on PATH, no network. synth, deploy,
// redeploy with no change, a one-field change, destroy. The tools come from tools/cdktn
// (scripts/test-tools.ts; `npm test` and .ci/run install them); this test fails, never skips,
// without them. keyward's own tests keep running on Node 20.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { packageVersion } from '../../constructs/launcher';
import { cdktnTools, type CdktnTools } from '../../scripts/test-tools';
import { api, startTestEngine } from '../support/engine';
import { runAsync } from '../support/run-async';
import { offlineEnv } from '../support/offline-env';

const REPO = resolve(__dirname, '../..');
const TSX = join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const APP = join(__dirname, 'fixtures', 'cdktn-app.ts');
// Four cdktn runs (each synthesizes, inits and plans/applies): 45-95 s on this 2-core machine under load.
const DEPLOY_TIMEOUT = 480_000;

describe('cdktn CLI (CDK Terrain)', () => {
  let tools: CdktnTools;
  let app: string;
  beforeAll(() => {
    tools = cdktnTools(); // throws, with the install command, when the tools are missing
    app = mkdtempSync(join(tmpdir(), 'kw-cdktn-'));
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'terrain-app', private: true, dependencies: { cdktn: '0.24.0', constructs: '^10.4.2', keyward: '*' } }));
    // `node` here is the PATH's Node 22, as in a cdktn user's project.
    writeFileSync(
      join(app, 'cdktf.json'),
      JSON.stringify({ language: 'typescript', app: `node ${TSX} ${APP}`, projectId: 'keyward-cdktn', sendCrashReports: 'false', terraformProviders: [], terraformModules: [] }),
    );
    mkdirSync(join(app, 'node_modules'));
    for (const dep of ['cdktn', 'constructs']) symlinkSync(join(REPO, 'node_modules', dep), join(app, 'node_modules', dep), 'dir');
    symlinkSync(REPO, join(app, 'node_modules', 'keyward'), 'dir');
  });
  afterAll(() => {
    if (app) rmSync(app, { recursive: true, force: true });
  });

  const cdktn = async (args: string[], env: Record<string, string> = {}) => {
    const r = await runAsync(tools.node, [tools.cli, ...args], {
      cwd: app,
      // Offline: anything that tries the network (registry, version checks) goes to a closed port.
      env: offlineEnv({
        PATH: `${tools.nodeBinDir}${delimiter}${process.env.PATH ?? ''}`,
        CI: '1',
        FORCE_COLOR: '0',
        NO_COLOR: '1',
        NO_PROXY: '127.0.0.1,localhost',
        ...env,
      }),
    });
    const out = r.stdout + r.stderr;
    expect({ args, status: r.status, out: out.slice(-4000) }).toMatchObject({ status: 0 });
    // cdktn checks `node --version` on PATH: the Node 22 put there is the one it found.
    expect(out).not.toMatch(/Node\.js version .* is not supported/);
    return out;
  };
  const stackDir = () => join(app, 'cdktf.out', 'stacks', 'terrain');

  it('runs cdktn-cli 0.24 on Node >= 22', async () => {
    expect(tools.cliVersion).toBe('0.24.0');
    const v = await runAsync(tools.node, ['--version']);
    expect(v.stdout).toMatch(/^v2[2-9]\./);
    expect((await cdktn(['--version'])).trim()).toMatch(/^0\.24\.0$/m);
  }, 120_000);

  it('cdktn synth writes the provider, its resources, the launcher and its lock entry (the app needs no cdktf)', async () => {
    const out = await cdktn(['synth']);
    expect(out).toMatch(/Generated Terraform code for the stacks: terrain/);
    const dir = stackDir();
    const tf = JSON.parse(readFileSync(join(dir, 'cdk.tf.json'), 'utf8'));
    expect(tf.terraform.required_providers.keyward).toEqual({ source: 'keyward/keyward', version: packageVersion() });
    const backend = Object.values(tf.resource.keyward_cloud_auth_backend as Record<string, { description: string; roles: object }>)[0];
    // The constructs loaded cdktn, the library the app's package.json names.
    expect(backend.description).toBe('synthesized with cdktn');
    expect(Object.keys(backend.roles)).toEqual(['role-0', 'role-1', 'role-2']);
    expect(JSON.stringify(tf)).not.toMatch(/terraform_data|local-exec|provisioner/);
    expect(existsSync(join(dir, 'keyward.manifest.json'))).toBe(true);
    expect(existsSync(join(dir, 'terraform.d', 'plugins', 'registry.terraform.io', 'keyward', 'keyward', packageVersion()))).toBe(true);
    expect(readFileSync(join(dir, '.terraform.lock.hcl'), 'utf8')).toContain('provider "registry.terraform.io/keyward/keyward"');
  }, 120_000);

  it(
    'cdktn deploy, redeploy (no changes), a one-field change, cdktn destroy',
    async () => {
      const engine = await startTestEngine();
      try {
        const env = { KEYWARD_E2E_ADDR: engine.url, VAULT_ADDR: engine.url, VAULT_TOKEN: engine.rootToken };
        const first = await cdktn(['deploy', '--auto-approve'], env);
        // init took the provider from the stack's terraform.d/plugins, checked against synth's lock entry (no registry).
        expect(first).toMatch(/Reusing previous version of keyward\/keyward from the dependency lock file/);
        expect(first).toMatch(/Terraform has been successfully initialized/);
        expect(first).toMatch(/1 added, 0 changed, 0 destroyed/);
        expect((await api(engine.url, 'LIST', 'auth/terrain/roles')).body.data.keys).toEqual(['role-0', 'role-1', 'role-2']);

        const again = await cdktn(['deploy', '--auto-approve'], env);
        expect(again).toMatch(/No changes\. Your infrastructure matches the configuration/);
        expect(again).toMatch(/0 added, 0 changed, 0 destroyed/);

        const changed = await cdktn(['deploy', '--auto-approve'], { ...env, KEYWARD_E2E_TTL: '2h' });
        expect(changed).toMatch(/0 to add, 1 to change, 0 to destroy/);
        expect((await api(engine.url, 'GET', 'auth/terrain/role/role-1')).body.data.token_ttl).toBe(7200);

        const gone = await cdktn(['destroy', '--auto-approve'], { ...env, KEYWARD_E2E_TTL: '2h' });
        expect(gone).toMatch(/Destroy complete! Resources: 1 destroyed/);
        expect((await api(engine.url, 'GET', 'sys/auth')).body.data['terrain/']).toBeUndefined();
      } finally {
        await engine.close();
      }
    },
    DEPLOY_TIMEOUT,
  );
});
