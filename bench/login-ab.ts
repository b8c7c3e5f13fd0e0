// Service-token login throughput of two keyward checkouts, measured interleaved: two engine
// processes, loaded in alternating short slices, so both see the same phases of this shared,
// noisy machine. Use it to tell whether a change helps; bench/login.ts gives the absolute figures
// (continuous load, so its rates run lower than these).
//
//   npx tsx bench/login-ab.ts --a /path/to/other/checkout [--b .] [--slices 8] [--slice-seconds 2] [--engine compiled|source]
//   (a checkout needs its node_modules; a git worktree with a symlink to this one's will do)
// Both engines run compiled by tsc, as shipped (bench/engine-build.ts); `--engine source` runs
// them through tsx instead.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Pool } from 'undici';
import { cloudDescription, SA, mountCloudAuth, writeRoles } from '../test/support/cloud-fixture';
import { ROOT_TOKEN } from '../test/support/engine';
import { startEngineProcess, type EngineProcess } from '../test/support/engine-process';
import { buildEngine, emulatorModule } from './engine-build';
import { cpuSeconds } from './process-cpu';
import { load, loginBodies } from './login-load';

const opt = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? def : process.argv[i + 1];
};
const here = resolve(__dirname, '..');
const CHECKOUTS = [resolve(opt('a', here)), resolve(opt('b', here))];
const SLICES = Number(opt('slices', '8'));
const SLICE_SECONDS = Number(opt('slice-seconds', '2'));
const CONCURRENCY = Number(opt('concurrency', '64'));
const ENGINE = opt('engine', 'compiled');

async function main() {
  const entries = CHECKOUTS.map((c) => (ENGINE === 'source' ? undefined : buildEngine(c)));
  const emu = await emulatorModule(entries[1]).startCloudEmulator({ description: cloudDescription });
  const dirs: string[] = [];
  const engines: EngineProcess[] = [];
  const pools: Pool[] = [];
  try {
    for (const [i, checkout] of CHECKOUTS.entries()) {
      const dataDir = mkdtempSync(join(tmpdir(), 'keyward-ab-'));
      dirs.push(dataDir);
      const engine = await startEngineProcess({ dataDir, rootToken: ROOT_TOKEN, checkout, entry: entries[i] });
      engines.push(engine);
      pools.push(new Pool(engine.url, { connections: CONCURRENCY }));
      await mountCloudAuth(engine, emu);
      await writeRoles(engine, { svc: { type: 'iam', bound_service_accounts: SA.app.email, token_type: 'service', token_ttl: '10m' } });
    }
    const bodies = loginBodies(emu, 'svc', 512);
    const totals = CHECKOUTS.map(() => ({ logins: 0, seconds: 0, cpu: 0, loop: 0 }));
    const slices: string[] = [];
    // Two unmeasured slices first (one per engine): the JIT needs a few seconds of logins.
    for (let k = -2; k < 2 * SLICES; k++) {
      const i = (k + 2) % 2;
      const pid = engines[i].pid;
      const [c0, m0, t0] = [cpuSeconds(pid), cpuSeconds(pid, true), performance.now()];
      const rate = await load(pools[i], { method: 'POST', path: 'auth/cloud/login', bodies, seconds: SLICE_SECONDS, concurrency: CONCURRENCY });
      const seconds = (performance.now() - t0) / 1000;
      if (k < 0) continue;
      const t = totals[i];
      t.logins += rate * seconds;
      t.seconds += seconds;
      t.cpu += cpuSeconds(pid) - c0;
      t.loop += cpuSeconds(pid, true) - m0;
      slices.push(`${'AB'[i]} ${Math.round(rate).toLocaleString('en-US')}`);
    }
    const lines = totals.map((t, i) => {
      const us = (s: number) => Math.round((s / t.logins) * 1e6);
      return `  ${'AB'[i]} ${CHECKOUTS[i]}: ${Math.round(t.logins / t.seconds).toLocaleString('en-US')}/s, engine CPU ${us(t.cpu)} µs/login, ${us(t.loop)} on the event loop`;
    });
    const ratio = totals[1].logins / totals[1].seconds / (totals[0].logins / totals[0].seconds);
    process.stdout.write(
      [
        `service-token logins, ${CONCURRENCY} concurrent, ${SLICES} interleaved slices of ${SLICE_SECONDS}s per checkout, engines ${ENGINE === 'source' ? 'run through tsx' : 'compiled (as shipped)'}`,
        `  slices: ${slices.join(' | ')}`,
        ...lines,
        `  B/A: ${ratio.toFixed(3)} (an A/A run shows the noise: a few percent here)`,
      ].join('\n') + '\n',
    );
  } finally {
    await Promise.all(pools.map((p) => p.close()));
    engines.forEach((e) => e.stop());
    await emu.close();
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
