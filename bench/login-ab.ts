// Service-token login throughput of two keyward checkouts, measured interleaved: two engine
// processes, loaded in alternating short slices, so both see the same phases of this shared,
// noisy machine. Use it to tell whether a change helps; bench/login.ts gives the absolute figures
// (continuous load, so its rates run lower than these).
//
//   npx tsx bench/login-ab.ts --a /path/to/other/checkout [--b .] [--slices 8] [--slice-seconds 2]
//   (a checkout needs its node_modules; a git worktree with a symlink to this one's will do)

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Pool } from 'undici';
import { startCloudEmulator } from '../src/cloud-emulator';
import { cloudDescription, SA, audience } from '../test/support/cloud-fixture';
import { startEngineProcess, type EngineProcess } from '../test/support/engine-process';
import { cpuSeconds } from './process-cpu';

const opt = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? def : process.argv[i + 1];
};
const here = resolve(__dirname, '..');
const CHECKOUTS = [resolve(opt('a', here)), resolve(opt('b', here))];
const SLICES = Number(opt('slices', '8'));
const SLICE_SECONDS = Number(opt('slice-seconds', '2'));
const CONCURRENCY = Number(opt('concurrency', '64'));
const TOKEN = 'bench-root';

async function post(pool: Pool, path: string, body: string, token: string | null): Promise<number> {
  const res = await pool.request({ method: 'POST', path: `/v1/${path}`, headers: token ? { 'x-vault-token': token } : {}, body });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${path}: ${res.statusCode} ${text}`);
  return res.statusCode;
}

async function main() {
  const emu = await startCloudEmulator({ description: cloudDescription });
  const dirs: string[] = [];
  const engines: EngineProcess[] = [];
  const pools: Pool[] = [];
  try {
    for (const checkout of CHECKOUTS) {
      const dataDir = mkdtempSync(join(tmpdir(), 'keyward-ab-'));
      dirs.push(dataDir);
      const engine = await startEngineProcess({ dataDir, rootToken: TOKEN, checkout });
      engines.push(engine);
      const pool = new Pool(engine.url, { connections: CONCURRENCY });
      pools.push(pool);
      await post(pool, 'sys/auth/cloud', JSON.stringify({ type: 'cloud' }), TOKEN);
      const endpoints = { api: emu.url, iam: emu.url, crm: emu.url, compute: emu.url };
      await post(pool, 'auth/cloud/config', JSON.stringify({ credentials: JSON.stringify(emu.keyFile(SA.keyward.email)), custom_endpoint: endpoints }), TOKEN);
      await post(pool, 'auth/cloud/role/svc', JSON.stringify({ type: 'iam', bound_service_accounts: SA.app.email, token_type: 'service', token_ttl: '10m' }), TOKEN);
    }
    const bodies = Array.from({ length: 512 }, (_, i) =>
      JSON.stringify({ role: 'svc', jwt: emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('svc'), ttl: 900, claims: { jti: `ab-${i}` } }) }),
    );
    const totals = CHECKOUTS.map(() => ({ logins: 0, seconds: 0, cpu: 0, loop: 0 }));
    const slices: string[] = [];
    // Two unmeasured slices first (one per engine): the JIT needs a few seconds of logins.
    for (let k = -2; k < 2 * SLICES; k++) {
      const i = (k + 2) % 2;
      const pid = engines[i].pid;
      let n = 0;
      let next = 0;
      const deadline = Date.now() + SLICE_SECONDS * 1000;
      const [c0, m0, t0] = [cpuSeconds(pid), cpuSeconds(pid, true), performance.now()];
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (Date.now() < deadline) {
            await post(pools[i], 'auth/cloud/login', bodies[next++ % bodies.length], null);
            n++;
          }
        }),
      );
      const seconds = (performance.now() - t0) / 1000;
      if (k < 0) continue;
      const t = totals[i];
      t.logins += n;
      t.seconds += seconds;
      t.cpu += cpuSeconds(pid) - c0;
      t.loop += cpuSeconds(pid, true) - m0;
      slices.push(`${'AB'[i]} ${Math.round(n / seconds).toLocaleString('en-US')}`);
    }
    const lines = totals.map((t, i) => {
      const us = (s: number) => Math.round((s / t.logins) * 1e6);
      return `  ${'AB'[i]} ${CHECKOUTS[i]}: ${Math.round(t.logins / t.seconds).toLocaleString('en-US')}/s, engine CPU ${us(t.cpu)} µs/login, ${us(t.loop)} on the event loop`;
    });
    const ratio = totals[1].logins / totals[1].seconds / (totals[0].logins / totals[0].seconds);
    process.stdout.write(
      [
        `service-token logins, ${CONCURRENCY} concurrent, ${SLICES} interleaved slices of ${SLICE_SECONDS}s per checkout`,
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
