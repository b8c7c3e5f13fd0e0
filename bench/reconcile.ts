// Reconciler scale: N roles on one mount (1,000 and 10,000): no-op plan, first apply (creates),
// and an apply with 10% of the roles changed, printed beside the same-run baseline of terraform
// plan and terraform apply on N terraform_data resources (one Terraform resource per role).
// The engine runs as a child process (`keyward server --dev`); the reconciler runs here.
//
//   npx tsx bench/reconcile.ts [--sizes 1000,10000] [--terraform-max 1000] [--parallelism 32]
//
// Targets on the reference machine: 1,000-role no-op plan <= 0.5 s, 10,000 <= 3 s, 1,000 creates <= 2 s.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VaultClient } from '../src/client/vault-client';
import { applyPlan } from '../src/reconcile/apply';
import { desiredFromManifest } from '../src/reconcile/desired';
import { makePlan } from '../src/reconcile/plan';
import { emptyRecord, type LastApplied } from '../src/reconcile/record';
import { parseManifest } from '../src/schema/manifest';
import { startEngineProcess } from '../test/support/engine-process';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? def : process.argv[i + 1];
};
const SIZES = arg('sizes', '1000,10000').split(',').map(Number);
const TF_MAX = Number(arg('terraform-max', '1000'));
const PAR = Number(arg('parallelism', '32'));
const TOKEN = 'bench-root';

function manifestFor(n: number, mount: string, ttl: (i: number) => number) {
  return parseManifest({
    version: 1,
    fingerprintSalt: 'bench-salt-0123456789',
    authBackends: [
      {
        path: mount,
        type: 'cloud',
        roles: Array.from({ length: n }, (_, i) => ({
          name: `role-${i}`,
          type: 'iam' as const,
          bound_service_accounts: [`sa-${i}@bench.iam.gserviceaccount.com`],
          token_policies: ['default', `p${i % 7}`],
          token_ttl: ttl(i),
        })),
      },
    ],
  });
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = process.hrtime.bigint();
  const r = await fn();
  return [r, Number(process.hrtime.bigint() - t0) / 1e9];
}

/** terraform plan/apply on n terraform_data resources (built-in provider: offline). */
function terraformBaseline(n: number): { apply: number; plan: number } {
  const dir = mkdtempSync(join(tmpdir(), 'keyward-bench-tf-'));
  const resources: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) resources[`r${i}`] = { input: { name: `role-${i}`, ttl: 3600 } };
  writeFileSync(join(dir, 'main.tf.json'), JSON.stringify({ resource: { terraform_data: resources } }));
  const env = { ...process.env, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' };
  const tf = (...a: string[]) => execFileSync('terraform', a, { cwd: dir, env, stdio: 'pipe', maxBuffer: 1 << 28 });
  tf('init', '-input=false', '-no-color');
  let t = Date.now();
  tf('apply', '-auto-approve', '-input=false', '-no-color');
  const apply = (Date.now() - t) / 1000;
  t = Date.now();
  tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
  const plan = (Date.now() - t) / 1000;
  rmSync(dir, { recursive: true, force: true });
  return { apply, plan };
}

const fmt = (s: number) => `${s.toFixed(2)} s`;
const ratio = (ours: number, base?: number) => (base ? `${(base / ours).toFixed(1)}x faster` : 'n/a');

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'keyward-bench-reconcile-'));
  const engine = await startEngineProcess({ dataDir, rootToken: TOKEN });
  const client = new VaultClient({ address: engine.url, token: TOKEN, connections: PAR * 2 });
  const rows: string[] = [];
  try {
    for (const n of SIZES) {
      const mount = `bench${n}`;
      let record: LastApplied = emptyRecord();
      const base = desiredFromManifest(
        manifestFor(n, mount, () => 3600),
        {},
      );
      const changed = desiredFromManifest(
        manifestFor(n, mount, (i) => (i % 10 === 0 ? 7200 : 3600)),
        {},
      );

      const [, create] = await timed(async () => {
        const { plan } = await makePlan(client, base, record, { parallelism: PAR });
        record = (await applyPlan(client, base, record, plan, { parallelism: PAR })).record;
      });
      const [noop, noopTime] = await timed(() => makePlan(client, base, record, { parallelism: PAR }));
      if (noop.plan.summary.noop !== n + 1) throw new Error(`no-op plan is not empty: ${JSON.stringify(noop.plan.summary)}`);
      const [, update] = await timed(async () => {
        const { plan } = await makePlan(client, changed, record, { parallelism: PAR });
        if (plan.summary.update !== n / 10) throw new Error(`expected ${n / 10} updates, got ${JSON.stringify(plan.summary)}`);
        record = (await applyPlan(client, changed, record, plan, { parallelism: PAR })).record;
      });

      let tf: { apply: number; plan: number } | undefined;
      if (n <= TF_MAX) tf = terraformBaseline(n);
      const tfText = (v?: number) => (v === undefined ? `skipped (raise --terraform-max to ${n})` : fmt(v));
      rows.push(
        `${n} roles`,
        `  no-op plan          ${fmt(noopTime).padStart(9)}   terraform plan  ${tfText(tf?.plan)}   ${ratio(noopTime, tf?.plan)}`,
        `  first apply (create)${fmt(create).padStart(9)}   terraform apply ${tfText(tf?.apply)}   ${ratio(create, tf?.apply)}`,
        `  apply, 10% changed  ${fmt(update).padStart(9)}   terraform apply ${tfText(tf?.apply)}   ${ratio(update, tf?.apply)}`,
      );
      process.stdout.write(rows.slice(-4).join('\n') + '\n');
    }
  } finally {
    await client.close();
    engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.stdout.write('\nTargets: 1,000-role no-op plan <= 0.5 s, 10,000 <= 3 s, 1,000 creates <= 2 s (plan + apply + verify read).\n');
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
