// GET sys/health on the engine beside a bare node:http server answering the same JSON, with the
// same load generator, interleaved in short slices so both see the same phases of a shared
// machine. The target (issue 23): the engine at >= 0.85 of the bare server. Prints both rates, the
// ratio, each server's CPU per request and the load average.
//
//   npx tsx bench/health.ts [--slices 8] [--slice-seconds 2] [--concurrency 32] [--engine compiled|source]
//   PATH=tools/node24/node_modules/.bin:$PATH node -r tsx/cjs bench/health.ts   # the same on Node 24
// Both servers run in their own processes on the Node that runs the bench; the engine compiled
// by tsc as shipped (bench/engine-build.ts).

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Pool } from 'undici';
import { ROOT_TOKEN } from '../test/support/engine';
import { startEngineProcess } from '../test/support/engine-process';
import { buildEngine } from './engine-build';
import { cpuSeconds } from './process-cpu';
import { load } from './login-load';

const opt = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? def : process.argv[i + 1];
};
const here = resolve(__dirname, '..');
const SLICES = Number(opt('slices', '8'));
const SLICE_SECONDS = Number(opt('slice-seconds', '2'));
const CONCURRENCY = Number(opt('concurrency', '32'));
const ENGINE = opt('engine', 'compiled');

/** Starts bench/health-bare.js answering `body`; resolves to its url and pid. */
function startBare(body: string): Promise<{ url: string; pid: number; stop(): void }> {
  const child = spawn(process.execPath, [join(__dirname, 'health-bare.js')], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, KEYWARD_BARE_BODY: body } });
  return new Promise((res, rej) => {
    let out = '';
    child.once('exit', (c) => rej(new Error(`bare server exited with ${c}`)));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) res({ url: m[1], pid: child.pid!, stop: () => void child.kill('SIGTERM') });
    });
  });
}

async function main() {
  const entry = ENGINE === 'source' ? undefined : buildEngine(here);
  const dataDir = mkdtempSync(join(tmpdir(), 'keyward-health-'));
  const engine = await startEngineProcess({ dataDir, rootToken: ROOT_TOKEN, entry });
  const probe = await fetch(`${engine.url}/v1/sys/health`);
  const body = await probe.text();
  if (probe.status !== 200) throw new Error(`sys/health answered ${probe.status}`);
  const bare = await startBare(body);
  const servers = [
    { name: 'bare node:http', url: bare.url, pid: bare.pid },
    { name: 'keyward engine', url: engine.url, pid: engine.pid },
  ];
  const pools = servers.map((s) => new Pool(s.url, { connections: CONCURRENCY }));
  const load0 = loadavg();
  try {
    const totals = servers.map(() => ({ requests: 0, seconds: 0, cpu: 0 }));
    const slices: string[] = [];
    // One unmeasured slice per server first: the JIT warms up.
    for (let k = -2; k < 2 * SLICES; k++) {
      const i = (k + 2) % 2;
      const [c0, t0] = [cpuSeconds(servers[i].pid), performance.now()];
      const rate = await load(pools[i], { method: 'GET', path: 'sys/health', seconds: SLICE_SECONDS, concurrency: CONCURRENCY });
      const seconds = (performance.now() - t0) / 1000;
      if (k < 0) continue;
      totals[i].requests += rate * seconds;
      totals[i].seconds += seconds;
      totals[i].cpu += cpuSeconds(servers[i].pid) - c0;
      slices.push(`${'BE'[i]} ${Math.round(rate).toLocaleString('en-US')}`);
    }
    const rate = (i: number) => totals[i].requests / totals[i].seconds;
    const lines = servers.map(
      (s, i) => `  ${s.name}: ${Math.round(rate(i)).toLocaleString('en-US')}/s, server CPU ${((totals[i].cpu / totals[i].requests) * 1e6).toFixed(1)} µs/request`,
    );
    const load1 = loadavg();
    process.stdout.write(
      [
        `GET /v1/sys/health, ${CONCURRENCY} concurrent keep-alive clients (undici), ${SLICES} interleaved slices of ${SLICE_SECONDS}s per server, Node ${process.version}, engine ${ENGINE === 'source' ? 'through tsx' : 'compiled (as shipped)'}`,
        `  slices: ${slices.join(' | ')}`,
        ...lines,
        `  engine / bare: ${(rate(1) / rate(0)).toFixed(3)} (target >= 0.85)`,
        `  load average before ${load0.map((l) => l.toFixed(2)).join(' ')}, after ${load1.map((l) => l.toFixed(2)).join(' ')} (2 cores: above 2 the figures are noisy)`,
      ].join('\n') + '\n',
    );
  } finally {
    await Promise.all(pools.map((p) => p.close()));
    engine.stop();
    bare.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
