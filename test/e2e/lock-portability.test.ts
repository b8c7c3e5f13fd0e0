// The lock file written on one checkout is accepted in another: the same app synthesized in two
// directories (different depths, different paths) writes byte-identical launchers and lock files;
// terraform init in A records the launcher's hash, and in B, with A's lock file and
// -lockfile=readonly, installs B's own launcher offline and leaves the lock untouched; terraform
// validate in B then runs the provider through B's node_modules/keyward.

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LAUNCHER_SCRIPT, launcherHash, launcherPath } from '../../constructs/launcher';
import { offlineEnv } from '../support/offline-env';

const REPO = resolve(__dirname, '../..');
const TSX = join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const APP = join(__dirname, 'fixtures', 'lock-app.ts');
// No registry, no CLI config, any network attempt meets a closed port.
const OFFLINE = offlineEnv();

function checkout(root: string): string {
  mkdirSync(join(root, 'node_modules'), { recursive: true });
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'app', private: true, dependencies: { cdktf: '0.21.0', constructs: '^10.4.2', keyward: '*' } }));
  for (const dep of ['cdktf', 'constructs']) symlinkSync(join(REPO, 'node_modules', dep), join(root, 'node_modules', dep), 'dir');
  symlinkSync(REPO, join(root, 'node_modules', 'keyward'), 'dir');
  const r = spawnSync(process.execPath, [TSX, APP], { cwd: root, env: { ...process.env, CDKTF_OUTDIR: join(root, 'cdktf.out') }, encoding: 'utf8' });
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
  return join(root, 'cdktf.out', 'stacks', 'locked');
}

function terraform(dir: string, ...args: string[]): string {
  const r = spawnSync('terraform', [...args, '-no-color'], { cwd: dir, env: OFFLINE, encoding: 'utf8' });
  const out = r.stdout + r.stderr;
  expect({ args, status: r.status, out }).toMatchObject({ status: 0 });
  return out;
}

describe('lock file portability between checkouts', () => {
  const roots: string[] = [];
  afterAll(() => roots.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it("synth in two directories writes the same launcher and lock; B's terraform init accepts A's lock offline", () => {
    roots.push(mkdtempSync(join(tmpdir(), 'kw-lock-a-')), mkdtempSync(join(tmpdir(), 'kw-lock-b-')));
    const rootA = roots[0];
    const rootB = join(roots[1], 'a', 'much', 'deeper', 'checkout');
    const a = checkout(rootA);
    const b = checkout(rootB);

    const launcherA = readFileSync(launcherPath(join(a, 'terraform.d', 'plugins')));
    const launcherB = readFileSync(launcherPath(join(b, 'terraform.d', 'plugins')));
    expect(launcherA.equals(launcherB)).toBe(true);
    expect(launcherA.toString('utf8')).toBe(LAUNCHER_SCRIPT);
    const synthLock = readFileSync(join(a, '.terraform.lock.hcl'), 'utf8');
    expect(readFileSync(join(b, '.terraform.lock.hcl'), 'utf8')).toBe(synthLock);
    for (const text of [launcherA.toString('utf8'), synthLock]) {
      expect(text).not.toContain(rootA);
      expect(text).not.toContain(roots[1]);
    }

    // Checkout A: terraform init installs the launcher from the stack directory and keeps synth's hash.
    expect(terraform(a, 'init', '-input=false')).toMatch(/Installing keyward\/keyward v/);
    const lockA = readFileSync(join(a, '.terraform.lock.hcl'), 'utf8');
    expect(lockA).toContain(launcherHash());

    // Checkout B, with A's lock file (as committed): init verifies B's launcher against it and changes nothing.
    copyFileSync(join(a, '.terraform.lock.hcl'), join(b, '.terraform.lock.hcl'));
    expect(terraform(b, 'init', '-input=false', '-lockfile=readonly')).toMatch(/Terraform has been successfully initialized/);
    expect(readFileSync(join(b, '.terraform.lock.hcl'), 'utf8')).toBe(lockA);
    // The installed provider runs in B (terraform asks it for its schema and validates the config).
    expect(terraform(b, 'validate')).toMatch(/The configuration is valid/);
  }, 120_000);
});
