// What the Terraform benches share: running terraform/cdktf with the time taken, keyward staged as
// `npm install keyward` lays it out (compiled dist/ only), a fresh build when dist/ is stale,
// and medians. Offline: nothing is fetched from a registry.

import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO = resolve(__dirname, '..');

// CDKTF_DISABLE_PLUGIN_CACHE_ENV: cdktf otherwise shares ~/.terraform.d/plugin-cache, where another
// checkout's launcher of the same version replaces this one's between init and plan.
export const BASE_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  CHECKPOINT_DISABLE: '1',
  CI: '1',
  FORCE_COLOR: '0',
  TF_IN_AUTOMATION: '1',
  DISABLE_VERSION_CHECK: '1',
  CDKTF_DISABLE_PLUGIN_CACHE_ENV: '1',
};
delete BASE_ENV.TF_PLUGIN_CACHE_DIR;

export interface Run {
  code: number | null;
  out: string;
  seconds: number;
  /** Stopped at the time limit. */
  timedOut?: boolean;
}

export function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, limitSeconds = 0): Promise<Run> {
  return new Promise((ok, fail) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let timedOut = false;
    const timer = limitSeconds > 0 ? setTimeout(() => ((timedOut = true), child.kill('SIGKILL')), limitSeconds * 1000) : undefined;
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      ok({ code, out, seconds: Number(process.hrtime.bigint() - t0) / 1e9, timedOut });
    });
  });
}

/** run(), and an error with the output's tail unless it exits 0 (or `allow` lists its code). */
export async function must(what: string, cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, limitSeconds = 0, allow: number[] = []): Promise<Run> {
  const r = await run(cmd, args, cwd, env, limitSeconds);
  if (r.timedOut) return r;
  if (r.code !== 0 && !allow.includes(r.code ?? -1)) throw new Error(`${what}: ${cmd} ${args.join(' ')} exited ${r.code}:\n${r.out.slice(-4000)}`);
  return r;
}

/** Newest modification time under dir (files only). */
function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

/** The compiled package is what users run: build it when dist/ (or the provider bundle) is missing or older than the sources. */
export function ensureBuild(): void {
  const built = join(REPO, 'dist', 'src', 'terraform', 'main.js');
  // The provider's one-file bundle and its code cache are what an install runs (npm run build's last step).
  const bundle = join(REPO, 'dist', 'src', 'terraform', 'plugin', 'provider.bundle.js');
  const bundled = existsSync(bundle) && existsSync(`${bundle}.cache`) && statSync(bundle).mtimeMs >= statSync(built).mtimeMs;
  if (existsSync(built) && bundled && statSync(built).mtimeMs >= Math.max(newest(join(REPO, 'src')), newest(join(REPO, 'constructs')))) return;
  process.stdout.write('dist/ is missing or older than the sources: npm run build\n');
  const r = spawnSync('npm', ['run', 'build'], { cwd: REPO, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('npm run build failed');
}

/**
 * node_modules/keyward as `npm install keyward` lays it out: package.json, bin/ and dist/ only (no
 * sources, so the provider runs the compiled output); its dependencies resolve from this checkout.
 */
export function stagePackage(root: string): string {
  const pkg = join(root, 'keyward');
  mkdirSync(join(pkg, 'bin'), { recursive: true });
  copyFileSync(join(REPO, 'package.json'), join(pkg, 'package.json'));
  for (const f of readdirSync(join(REPO, 'bin'))) copyFileSync(join(REPO, 'bin', f), join(pkg, 'bin', f));
  symlinkSync(join(REPO, 'dist'), join(pkg, 'dist'), 'dir');
  symlinkSync(join(REPO, 'node_modules'), join(pkg, 'node_modules'), 'dir');
  return pkg;
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
export const secs = (s: number) => `${s.toFixed(1)} s`;

/** Seconds, and "PASS"/"MISS" against `at most` (ratios: smaller is better). */
export const verdict = (value: number, atMost: number) => (value <= atMost ? 'PASS' : 'MISS');

/** The machine's load averages, printed with every figure (a loaded 2-core machine skews them). */
export function load(): string {
  const l = loadavg();
  return `load average ${l.map((x) => x.toFixed(2)).join(', ')}`;
}
