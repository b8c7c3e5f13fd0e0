// The provider installs offline, with no registry: `terraform init` picks the launcher up from the
// stack's terraform.d/plugins (written at synth) or from a plugin directory `keyward terraform
// install --dir` filled, and the hashes it locks are the same in every directory (the launcher's
// bytes hold no path), so a .terraform.lock.hcl committed on one checkout is accepted on another.

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { LAUNCHER_SCRIPT, packageVersion, writeLauncher } from '../../constructs/launcher';
import { runTerraformInstall } from '../../src/cli/commands/terraform-install';
import { offlineEnv } from '../support/offline-env';

const ENV = offlineEnv();
const CONFIG = JSON.stringify({ terraform: { required_providers: { keyward: { source: 'keyward/keyward', version: packageVersion() } } } });

function init(dir: string, extra: string[] = []): { status: number | null; out: string } {
  const r = spawnSync('terraform', ['init', '-input=false', '-no-color', ...extra], { cwd: dir, env: ENV, encoding: 'utf8' });
  return { status: r.status, out: r.stdout + r.stderr };
}

const hashesOf = (lock: string) => [...lock.matchAll(/"(h1:[^"]+)"/g)].map((m) => m[1]);

describe('offline provider installation', () => {
  const dirs: string[] = [];
  const tmp = (p: string) => {
    const d = mkdtempSync(join(tmpdir(), p));
    dirs.push(d);
    return d;
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('terraform init installs the launcher from terraform.d/plugins; the lock file is accepted in another directory', () => {
    const a = tmp('kw-tf-a-');
    const b = tmp('kw-tf-b-deeper-path-');
    for (const d of [a, b]) {
      writeFileSync(join(d, 'main.tf.json'), CONFIG);
      writeLauncher(join(d, 'terraform.d', 'plugins'));
    }
    const ra = init(a);
    expect(ra).toMatchObject({ status: 0 });
    expect(ra.out).toMatch(/Installing keyward\/keyward v0\.\d+\.\d+/);
    const lock = readFileSync(join(a, '.terraform.lock.hcl'), 'utf8');
    expect(hashesOf(lock).length).toBeGreaterThan(0);
    // The lock from checkout A, used in checkout B: init verifies B's launcher against A's hashes.
    copyFileSync(join(a, '.terraform.lock.hcl'), join(b, '.terraform.lock.hcl'));
    const rb = init(b, ['-lockfile=readonly']);
    expect(rb).toMatchObject({ status: 0 });
    expect(readFileSync(join(b, '.terraform.lock.hcl'), 'utf8')).toBe(lock);
  });

  it('refuses a launcher whose bytes differ from the locked ones (the check above is real)', () => {
    const a = tmp('kw-tf-c-');
    writeFileSync(join(a, 'main.tf.json'), CONFIG);
    writeLauncher(join(a, 'terraform.d', 'plugins'));
    expect(init(a).status).toBe(0);
    const b = tmp('kw-tf-d-');
    writeFileSync(join(b, 'main.tf.json'), CONFIG);
    const file = writeLauncher(join(b, 'terraform.d', 'plugins'));
    writeFileSync(file, `${LAUNCHER_SCRIPT}// changed\n`, { mode: 0o755 });
    copyFileSync(join(a, '.terraform.lock.hcl'), join(b, '.terraform.lock.hcl'));
    const r = init(b, ['-lockfile=readonly']);
    expect(r.status).not.toBe(0);
    expect(r.out).toMatch(/checksum|doesn't match|does not match/i);
  });

  it('keyward terraform install --dir fills a plugin directory terraform init -plugin-dir installs from', () => {
    const plugins = tmp('kw-tf-plugins-');
    const out: string[] = [];
    const [file, tofu] = runTerraformInstall({ dir: plugins, platform: 'linux_amd64' }, (s) => out.push(s));
    expect(readFileSync(file, 'utf8')).toBe(LAUNCHER_SCRIPT);
    // OpenTofu resolves keyward/keyward to registry.opentofu.org: the same launcher lives there too.
    const v = packageVersion();
    expect([file, tofu].map((f) => relative(plugins, f))).toEqual([
      `registry.terraform.io/keyward/keyward/${v}/linux_amd64/terraform-provider-keyward_v${v}`,
      `registry.opentofu.org/keyward/keyward/${v}/linux_amd64/terraform-provider-keyward_v${v}`,
    ]);
    expect(readFileSync(tofu, 'utf8')).toBe(LAUNCHER_SCRIPT);
    expect(statSync(tofu).mode & 0o777).toBe(0o755);
    expect(out.join('')).toContain('source = "keyward/keyward"');
    const project = tmp('kw-tf-hcl-');
    writeFileSync(join(project, 'main.tf.json'), CONFIG);
    const r = init(project, [`-plugin-dir=${plugins}`]);
    expect(r).toMatchObject({ status: 0 });
    expect(r.out).toMatch(/Installing keyward\/keyward/);
  });

  it('the launcher runs the provider of the keyward package found from its working directory upward', () => {
    const app = tmp('kw-launch-');
    const pkg = join(app, 'node_modules', 'keyward');
    mkdirSync(join(pkg, 'bin'), { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'keyward', version: '9.9.9' }));
    writeFileSync(join(pkg, 'bin', 'terraform-provider-keyward.js'), "process.stdout.write('provider from ' + __dirname)");
    const launcher = writeLauncher(join(app, 'plugins'));
    const cwd = join(app, 'cdktf.out', 'stacks', 's');
    mkdirSync(cwd, { recursive: true });
    const ok = spawnSync(launcher, [], { cwd, encoding: 'utf8', env: { ...process.env, PATH: `${join(process.execPath, '..')}` } });
    expect({ status: ok.status, out: ok.stdout }).toEqual({ status: 0, out: `provider from ${join(pkg, 'bin')}` });
    const lost = tmp('kw-launch-none-');
    const bad = spawnSync(launcher, [], { cwd: lost, encoding: 'utf8', env: { ...process.env, PATH: `${join(process.execPath, '..')}` } });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('the keyward package is not installed');
  });

  it('without the keyward package, terraform plan says so and how to install it, with no debug logging', () => {
    const dir = tmp('kw-tf-missing-');
    writeFileSync(
      join(dir, 'main.tf.json'),
      JSON.stringify({
        terraform: { required_providers: { keyward: { source: 'keyward/keyward', version: packageVersion() } } },
        provider: { keyward: { address: 'http://127.0.0.1:1' } },
        resource: { keyward_snapshot_auto_config: { a: { name: 'a', storage_type: 'local', interval: '1h', path_prefix: '/tmp/x', local_max_space: 1000 } } },
      }),
    );
    writeLauncher(join(dir, 'terraform.d', 'plugins'));
    expect(init(dir).status).toBe(0);
    // PATH with node and terraform only: no `keyward` command to find the package beside.
    const terraformDir = dirname(spawnSync('sh', ['-c', 'command -v terraform'], { encoding: 'utf8' }).stdout.trim());
    const env = { ...ENV, PATH: [dirname(process.execPath), terraformDir, '/usr/bin', '/bin'].join(':') };
    delete (env as Record<string, string | undefined>).TF_LOG;
    const r = spawnSync('terraform', ['plan', '-input=false', '-no-color'], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
    const out = (r.stdout + r.stderr).replace(/\s+/g, ' ');
    expect(r.status).toBe(1);
    expect(out).toContain(`keyward's Terraform provider cannot start: the keyward package is not installed (looked for node_modules/keyward from ${dir} upward`);
    expect(out).toContain('npm install keyward answers 404');
    expect(out).toContain('npm install && npm pack');
    expect(out).toContain('npm install <checkout>/keyward-<version>.tgz');
  });
});
