// Startup time of the compiled `keyward` command as a user installs it (bin/, dist/, package.json,
// no src/): builds dist with `npm run build` in a temporary copy of the sources, then times N runs
// each of `--version` and `plan --help` against a bare `node -e 0` measured in the same run, and
// prints the medians and the difference (target: within 150 ms of `node -e 0`).
//
//   npx tsx bench/cli-startup.ts [runs=15]

import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO = resolve(__dirname, '..');
const RUNS = Number(process.argv[2] ?? 15);
const TARGET_MS = 150;

function sh(cmd: string, args: string[], cwd: string): void {
  const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd} (${r.status ?? r.signal})`);
}

/** A build tree (sources and configs) and an install tree (bin, dist, package.json) side by side. */
function prepare(root: string): string {
  const build = join(root, 'build');
  mkdirSync(build);
  for (const f of ['src', 'constructs', 'bin', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) cpSync(join(REPO, f), join(build, f), { recursive: true });
  symlinkSync(join(REPO, 'node_modules'), join(build, 'node_modules'), 'dir');
  sh('npm', ['run', '--silent', 'build'], build);
  const installed = join(root, 'installed', 'keyward');
  mkdirSync(installed, { recursive: true });
  for (const f of ['bin', 'dist', 'package.json']) cpSync(join(build, f), join(installed, f), { recursive: true });
  symlinkSync(join(REPO, 'node_modules'), join(installed, 'node_modules'), 'dir');
  return installed;
}

function timeOnce(args: string[], cwd: string): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${String(r.stderr)}`);
  return ms;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function main(): void {
  const root = mkdtempSync(join(tmpdir(), 'keyward-cli-startup-'));
  try {
    const installed = prepare(root);
    const bin = join(installed, 'bin', 'keyward.js');
    const cases: [string, string[]][] = [
      ['node -e 0', ['-e', '0']],
      ['keyward --version', [bin, '--version']],
      ['keyward plan --help', [bin, 'plan', '--help']],
    ];
    // Interleaved so that machine load drifts affect every case alike; one warm-up each.
    const samples = new Map<string, number[]>(cases.map(([name]) => [name, []]));
    for (const [, args] of cases) timeOnce(args, installed);
    for (let i = 0; i < RUNS; i++) for (const [name, args] of cases) samples.get(name)!.push(timeOnce(args, installed));
    const base = median(samples.get('node -e 0')!);
    console.log(`cli startup, ${RUNS} runs each (median wall time; compiled install without src/)`);
    for (const [name] of cases) {
      const m = median(samples.get(name)!);
      const diff = m - base;
      const verdict = name === 'node -e 0' ? '' : diff <= TARGET_MS ? `  (+${diff.toFixed(0)} ms: within ${TARGET_MS} ms)` : `  (+${diff.toFixed(0)} ms: OVER ${TARGET_MS} ms)`;
      console.log(`  ${name.padEnd(22)} ${m.toFixed(1).padStart(7)} ms${verdict}`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main();
