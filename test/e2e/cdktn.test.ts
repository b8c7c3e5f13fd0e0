// CDK Terrain: a cdktn app (its package.json names only cdktn) synthesizes keyward's provider and
// resources with cdktn's classes, and deploys through terraform: deploy, redeploy with no change,
// destroy. cdktn-cli needs Node >= 22, so synth runs the app directly (as cdktn's CLI would) and
// terraform runs in the stack directory.

import { spawnSync } from 'node:child_process';
import { runAsync } from '../support/run-async';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { packageVersion } from '../../constructs/launcher';
import { api, startTestEngine, ROOT_TOKEN } from '../support/engine';

const REPO = resolve(__dirname, '../..');
const TSX = join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const HAS_PROVIDER = existsSync(join(REPO, 'bin', 'terraform-provider-keyward.js'));

describe('cdktn', () => {
  let app: string;
  beforeAll(() => {
    app = mkdtempSync(join(tmpdir(), 'kw-cdktn-'));
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'terrain-app', private: true, dependencies: { cdktn: '0.24.0', keyward: '*' } }));
    mkdirSync(join(app, 'node_modules'));
    for (const dep of ['cdktn', 'constructs']) symlinkSync(join(REPO, 'node_modules', dep), join(app, 'node_modules', dep), 'dir');
    symlinkSync(REPO, join(app, 'node_modules', 'keyward'), 'dir');
  });
  afterAll(() => rmSync(app, { recursive: true, force: true }));

  const synth = (env: Record<string, string> = {}) => {
    const r = spawnSync(process.execPath, [TSX, join(__dirname, 'fixtures', 'cdktn-app.ts')], {
      cwd: app,
      env: { ...process.env, CDKTF_OUTDIR: join(app, 'cdktf.out'), ...env },
      encoding: 'utf8',
    });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
    return join(app, 'cdktf.out', 'stacks', 'terrain');
  };

  it('synthesizes the provider and resources with cdktn (no cdktf needed by the app)', () => {
    const dir = synth();
    const tf = JSON.parse(readFileSync(join(dir, 'cdk.tf.json'), 'utf8'));
    expect(tf.terraform.required_providers.keyward).toEqual({ source: 'keyward/keyward', version: packageVersion() });
    const backend = Object.values(tf.resource.keyward_cloud_auth_backend as Record<string, { description: string; roles: object }>)[0];
    expect(backend.description).toBe('synthesized with cdktn');
    expect(Object.keys(backend.roles)).toEqual(['role-0', 'role-1', 'role-2']);
    expect(existsSync(join(dir, 'keyward.manifest.json'))).toBe(true);
    expect(existsSync(join(dir, 'terraform.d', 'plugins', 'registry.terraform.io', 'keyward', 'keyward', packageVersion()))).toBe(true);
  });

  (HAS_PROVIDER ? it : it.skip)('deploys, redeploys with no change and destroys through terraform', async () => {
    const engine = await startTestEngine();
    try {
      const env = { ...process.env, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', VAULT_ADDR: engine.url, VAULT_TOKEN: ROOT_TOKEN, NO_COLOR: '1' };
      const tf = async (dir: string, ...args: string[]) => {
        const r = await runAsync('terraform', [...args, '-no-color'], { cwd: dir, env });
        expect({ args, status: r.status, out: r.stdout + r.stderr }).toMatchObject({ status: 0 });
        return r.stdout;
      };
      const dir = synth({ KEYWARD_E2E_ADDR: engine.url });
      await tf(dir, 'init', '-input=false');
      expect(await tf(dir, 'apply', '-auto-approve', '-input=false')).toMatch(/1 added, 0 changed, 0 destroyed/);
      expect((await api(engine.url, 'LIST', 'auth/terrain/roles')).body.data.keys).toEqual(['role-0', 'role-1', 'role-2']);
      expect(await tf(dir, 'plan', '-input=false')).toMatch(/No changes/);
      await tf(dir, 'destroy', '-auto-approve', '-input=false');
      expect((await api(engine.url, 'GET', 'sys/auth')).body.data['terrain/']).toBeUndefined();
    } finally {
      await engine.close();
    }
  }, 180_000);
});
