// Start-up of the compiled Terraform provider (bin/terraform-provider-keyward.js running dist/):
// wall and CPU from process start to the go-plugin handshake line, against a bare node process
// that prints one line, measured interleaved in the same run (medians). Terraform starts the
// provider ~4 times per command, so this is paid per start. `npm run build` first.
//
//   npx tsx bench/provider-start.ts [--runs 15] [--against <checkout with dist/>]
//
// --against: also starts another checkout's provider (say, a `git archive` of main, built) and
// prints after/before ratios.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO = resolve(__dirname, '..');
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const RUNS = Number(arg('--runs') ?? 15);
const AGAINST = arg('--against');

// Preloaded into each process: reports wall since preload and the process's CPU at its first stdout write, then exits.
const HOOK = `const t0 = process.hrtime.bigint();
process.stdout.write = function () {
  const c = process.cpuUsage();
  process.stderr.write('\\nSTART ' + JSON.stringify({ wall: Number(process.hrtime.bigint() - t0) / 1e6, cpu: (c.user + c.system) / 1000 }) + '\\n');
  process.exit(0);
};`;

const env = { ...process.env, TF_PLUGIN_MAGIC_COOKIE: 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2', PLUGIN_PROTOCOL_VERSIONS: '6' };

function once(hook: string, args: string[]): { wall: number; cpu: number } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['-r', hook, ...args], { env, encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  const line = r.stderr.split('\n').find((l) => l.startsWith('START '));
  if (!line) throw new Error(`node ${args.join(' ')}: no handshake (exit ${r.status}): ${r.stderr}`);
  return { wall, cpu: (JSON.parse(line.slice(6)) as { cpu: number }).cpu };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), 'keyward-provider-start-'));
  try {
    const hook = join(dir, 'hook.js');
    writeFileSync(hook, HOOK);
    const cases: [string, string[]][] = [
      ['node, one line', ['-e', 'process.stdout.write("x")']],
      ['provider', [join(REPO, 'bin', 'terraform-provider-keyward.js')]],
      ...(AGAINST ? [['provider (--against)', [join(resolve(AGAINST), 'bin', 'terraform-provider-keyward.js')]] as [string, string[]]] : []),
    ];
    const samples = new Map(cases.map(([n]) => [n, [] as { wall: number; cpu: number }[]]));
    for (const [, a] of cases) once(hook, a); // warm-up
    for (let i = 0; i < RUNS; i++) for (const [n, a] of cases) samples.get(n)!.push(once(hook, a));
    const m = (n: string, k: 'wall' | 'cpu'): number => median(samples.get(n)!.map((s) => s[k]));
    console.log(`provider start to handshake, ${RUNS} interleaved runs each (medians)`);
    for (const [n] of cases) console.log(`  ${n.padEnd(22)} wall ${m(n, 'wall').toFixed(0).padStart(5)} ms   cpu ${m(n, 'cpu').toFixed(0).padStart(5)} ms`);
    if (AGAINST) {
      const p = 'provider';
      const b = 'provider (--against)';
      console.log(`  this / --against: wall ${(m(p, 'wall') / m(b, 'wall')).toFixed(2)}, cpu ${(m(p, 'cpu') / m(b, 'cpu')).toFixed(2)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
