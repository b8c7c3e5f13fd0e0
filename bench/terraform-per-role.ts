// Plain `terraform` (no cdktf) on N keyward_cloud_auth_role resources beside the same-run baseline
// of N terraform_data resources (Terraform core's own per-resource cost, no I/O): init + first
// apply, a no-op `terraform plan` (which refreshes every role), and an apply with 10% of the roles
// changed. keyward runs as installed (compiled dist/, the launcher in terraform.d/plugins) against
// the engine in its own process; the roles sit on a mount made beforehand. Interleaved rounds in
// rotating order, medians; ratios keyward / baseline against issue 31's targets.
//
//   npx tsx bench/terraform-per-role.ts [--sizes 300,1000] [--rounds N] [--trace DIR]
//
// --rounds: default 3 up to 300 roles, 1 above. --trace DIR: also writes TF_LOG=trace logs of each
// keyward phase to DIR and prints the provider's mean and maximum time per RPC (the TF_LOG timings
// slow the run: figures taken with --trace are not comparable).

import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeLauncher } from '../constructs/launcher';
import { startEngineProcess } from '../test/support/engine-process';
import { BASE_ENV, REPO, ensureBuild, load, median, must, secs, stagePackage, verdict } from './terraform-harness';

const TOKEN = 'bench-root';
const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? def : process.argv[i + 1]!;
};
const SIZES = arg('sizes', '300,1000').split(',').map(Number);
const ROUNDS_ARG = arg('rounds', '');
const TRACE = arg('trace', '');
const roundsFor = (n: number) => (ROUNDS_ARG === '' ? (n <= 300 ? 3 : 1) : Number(ROUNDS_ARG));
if (SIZES.some((n) => !Number.isInteger(n) || n < 10 || !(roundsFor(n) >= 1))) {
  process.stderr.write('usage: npx tsx bench/terraform-per-role.ts [--sizes 300,1000] [--rounds N] [--trace DIR]  (sizes >= 10)\n');
  process.exit(2);
}

type Phase = 'first' | 'noop' | 'update';
const PHASES: Phase[] = ['first', 'noop', 'update'];
const LABEL: Record<Phase, string> = { first: 'init + first apply', noop: 'no-op plan', update: 'apply, 10% changed' };
/** Issue 31's targets: keyward / baseline at most. */
const TARGET: Record<Phase, number> = { first: 1.2, noop: 1.5, update: 1.2 };

const role = (i: number, changed: boolean) => ({
  type: 'iam',
  bound_service_accounts: [`sa-${i}@bench.iam.gserviceaccount.com`],
  token_policies: ['default', `p${i % 7}`],
  token_ttl: i % 10 === 0 && changed ? '2h' : '1h',
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function vault(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/v1/${path}`, { method, headers: { 'x-vault-token': TOKEN }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Terraform's per-RPC timings from the provider's TF_LOG lines ("<rpc> handled in <ms> ms"). */
function rpcTimings(log: string): string {
  const by = new Map<string, number[]>();
  for (const m of log.matchAll(/\[TRACE\] (\w+) handled in ([\d.]+) ms/g)) (by.get(m[1]!) ?? by.set(m[1]!, []).get(m[1]!)!).push(Number(m[2]));
  return [...by].map(([rpc, ms]) => `${rpc} x${ms.length} mean ${(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(1)} ms max ${Math.max(...ms).toFixed(1)} ms`).join('; ');
}

async function round(who: 'keyward' | 'baseline', n: number, r: number, work: string, pkg: string, url: string): Promise<Record<Phase, number>> {
  const dir = join(work, `${who}-${n}-${r}`);
  const mount = `per-role-${n}-${r}`;
  mkdirSync(dir);
  const write = (changed: boolean) => {
    const resources: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) resources[`role-${i}`] = who === 'keyward' ? { backend: mount, name: `role-${i}`, ...role(i, changed) } : { input: role(i, changed) };
    const tf =
      who === 'keyward'
        ? {
            terraform: { required_providers: { keyward: { source: 'keyward/keyward' } } },
            provider: { keyward: { address: url } },
            resource: { keyward_cloud_auth_role: resources },
          }
        : { resource: { terraform_data: resources } };
    writeFileSync(join(dir, 'main.tf.json'), JSON.stringify(tf));
  };
  let env: NodeJS.ProcessEnv = { ...BASE_ENV, TF_CLI_CONFIG_FILE: join(dir, 'empty.tfrc') };
  writeFileSync(join(dir, 'empty.tfrc'), '');
  if (who === 'keyward') {
    writeLauncher(join(dir, 'terraform.d', 'plugins'));
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(pkg, join(dir, 'node_modules', 'keyward'), 'dir');
    env = { ...env, VAULT_ADDR: url, VAULT_TOKEN: TOKEN };
    const made = await vault(url, 'POST', `sys/auth/${mount}`, { type: 'cloud' });
    if (made.status !== 204) throw new Error(`mounting ${mount}: ${made.status} ${JSON.stringify(made.body)}`);
  }
  const tf = (phase: Phase | 'init', allow: number[], ...a: string[]) => {
    const traced = TRACE && who === 'keyward' && phase !== 'init' ? { TF_LOG: 'trace', TF_LOG_PATH: join(TRACE, `${n}-${r}-${phase}.log`) } : {};
    return must(`${who} ${phase} (${n})`, 'terraform', [...a, '-input=false', '-no-color'], dir, { ...env, ...traced }, 0, allow);
  };
  write(false);
  const init = await tf('init', [], 'init');
  const first = await tf('first', [], 'apply', '-auto-approve');
  const noop = await tf('noop', [0], 'plan', '-detailed-exitcode');
  write(true);
  const update = await tf('update', [], 'apply', '-auto-approve');
  if (!new RegExp(`0 added, ${n / 10} changed, 0 destroyed`).test(update.out)) throw new Error(`${who} update:\n${update.out.slice(-2000)}`);
  if (who === 'keyward') {
    const ttl = async (i: number) => (await vault(url, 'GET', `auth/${mount}/role/role-${i}`)).body?.data?.token_ttl;
    if ((await ttl(0)) !== 7200 || (await ttl(n - 1)) !== 3600) throw new Error(`the 10% change did not land on ${mount}`);
    if (TRACE) for (const p of PHASES) process.stdout.write(`    trace ${p}: ${rpcTimings(readFileSync(join(TRACE, `${n}-${r}-${p}.log`), 'utf8'))}\n`);
  }
  rmSync(dir, { recursive: true, force: true });
  return { first: init.seconds + first.seconds, noop: noop.seconds, update: update.seconds };
}

async function main(): Promise<void> {
  ensureBuild();
  if (TRACE) mkdirSync(TRACE, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'keyward-bench-per-role-'));
  const pkg = stagePackage(join(work, 'pkg'));
  const entry = join(work, 'keyward-engine.js');
  writeFileSync(entry, `'use strict';\nrequire(${JSON.stringify(join(REPO, 'dist', 'src', 'cli', 'main.js'))}).main(process.argv);\n`);
  const engine = await startEngineProcess({ dataDir: join(work, 'data'), rootToken: TOKEN, entry });
  const verdicts: string[] = [];
  process.stdout.write(`plain terraform, keyward from dist/ vs terraform_data, interleaved, medians; ${load()} at start\n`);
  try {
    for (const n of SIZES) {
      const times = { keyward: { first: [], noop: [], update: [] }, baseline: { first: [], noop: [], update: [] } } as Record<'keyward' | 'baseline', Record<Phase, number[]>>;
      const rounds = roundsFor(n);
      for (let r = 0; r < rounds; r++) {
        for (const who of (r % 2 === 0 ? ['keyward', 'baseline'] : ['baseline', 'keyward']) as ('keyward' | 'baseline')[]) {
          const t = await round(who, n, r, work, pkg, engine.url);
          for (const p of PHASES) times[who][p].push(t[p]);
          process.stdout.write(`  ${n} roles, round ${r + 1}, ${who.padEnd(8)}: ${PHASES.map((p) => `${p} ${secs(t[p])}`).join(', ')}  (${load()})\n`);
        }
      }
      process.stdout.write(`\n${n} roles (median of ${rounds})   ${n} keyward_cloud_auth_role   ${n} terraform_data   keyward / baseline   target\n`);
      for (const p of PHASES) {
        const k = median(times.keyward[p]);
        const b = median(times.baseline[p]);
        const line = `${(k / b).toFixed(2)}x <= ${TARGET[p]}x ${verdict(k / b, TARGET[p])}`;
        verdicts.push(`${n} roles ${LABEL[p]}: ${secs(k)} vs ${secs(b)}, ${line}`);
        process.stdout.write(
          `  ${LABEL[p].padEnd(20)} ${secs(k).padStart(10)}               ${secs(b).padStart(10)}        ${(k / b).toFixed(2).padStart(6)}x          <= ${TARGET[p]}x ${verdict(k / b, TARGET[p])}\n`,
        );
      }
      process.stdout.write('\n');
    }
  } finally {
    engine.stop();
    rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(`Targets (${load()} at the end):\n${verdicts.map((v) => `  ${v}`).join('\n')}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
