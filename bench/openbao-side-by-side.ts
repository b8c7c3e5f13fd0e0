// The embedded engine beside real OpenBao on the same machine, in one run: GET sys/health, token create
// followed by a lookup of the new token, and GCP iam logins (OpenBao through the real GCP auth plugin;
// all against the same cloud emulator, with the same distinct JWTs). The engine is what users run
// locally in OpenBao's place, so it should not be slower: the bench prints engine/OpenBao ratios, each
// server's CPU per request (OpenBao's login CPU includes its plugin process) and the load average.
// The servers take turns in short interleaved slices so all see the same phases of a shared machine.
//
//   npx tsx bench/openbao-side-by-side.ts [--slices 4] [--slice-seconds 2] [--concurrency 16] [--warmup-seconds 3] [--engine-dir /dev/shm]
// Needs tools/real-servers (bash tools/real-servers/install.sh). The engine runs compiled by tsc, as
// shipped (bench/engine-build.ts), with its default storage (SQLite, fsync per write); OpenBao runs
// `bao server -dev` (in-memory storage: no disk at all), which favours OpenBao on every write, and a
// one-node raft OpenBao (bolt, fsync per commit), the durable comparison.
//
// Measured 2026-11-28, 13:28 UTC (2 cores shared with other jobs, load average 12-14: noisy; --slices 4):
//   sys/health            engine 12,601/s  vs -dev 9,207/s (1.37)  vs raft 9,751/s (1.29); CPU/request 28 vs 59 / 55 µs
//   token create + lookup engine    401/s  vs -dev   842/s (0.48)  vs raft   248/s (1.61); CPU/request 527 vs 370 / 836 µs
//   iam login             engine    966/s  vs -dev   261/s (3.70)  vs raft   153/s (6.31); CPU/request 503 vs 3,204 / 4,621 µs
// Where the engine is slower (token create against -dev) it waits for the disk, not for CPU: a CPU profile of the
// engine under this load (--cpu-prof) shows its event loop idle 50-60% of the time, since each created token is
// answered only after the fdatasync of the SQLite WAL that follows its commit (group commit on libuv's pool),
// while -dev keeps everything in memory. With the engine's store on tmpfs (--engine-dir /dev/shm, 13:31 UTC,
// same load) it does 870 pairs/s against -dev's 643 (1.35) at 405 against 491 µs CPU per request; against OpenBao
// with durable storage (raft, fsync per commit) it is ahead either way (1.61 on disk, 4.12 on tmpfs). Its CPU per
// request beyond -dev's on disk is the SQLite transaction, the row's AES-GCM seal, the keyed hashes of the token's
// storage key and the socket writev (the largest self-time item, ~8-10%).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Pool } from 'undici';
import { cloudDescription, SA } from '../test/support/cloud-fixture';
import { ROOT_TOKEN } from '../test/support/engine';
import { startEngineProcess } from '../test/support/engine-process';
import { registerGcpPlugin, realServerTools, startOpenBaoCluster, startOpenBaoDev } from '../test/support/openbao';
import { buildEngine, emulatorModule } from './engine-build';
import { cpuSeconds } from './process-cpu';

const opt = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? def : Number(process.argv[i + 1]);
};
const SLICES = opt('slices', 4);
const SLICE_SECONDS = opt('slice-seconds', 2);
const CONCURRENCY = opt('concurrency', 16);
/** The unmeasured first slice per server and workload: long enough for V8 to optimise the engine's hot paths. */
const WARMUP_SECONDS = opt('warmup-seconds', 3);

interface Server {
  name: string;
  /** Its mark in the per-slice figures. */
  tag: string;
  url: string;
  token: string;
  /** The processes whose CPU this server's requests cost (OpenBao: the server and its plugin). */
  pids: () => number[];
  /** The auth mount and the role type value in this server's names. */
  mount: string;
  pool: Pool;
}

async function call(
  s: Server,
  method: string,
  path: string,
  body?: unknown,
  token: string | null = s.token,
): Promise<{ status: number; json: { auth?: { client_token: string } } | undefined }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers['x-vault-token'] = token;
  const r = await s.pool.request({ method: method as 'GET', path: `/v1/${path}`, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.body.text();
  return { status: r.statusCode, json: text ? JSON.parse(text) : undefined };
}

/** One unit of each workload; resolves to the number of requests it made. Any failure fails the run. */
type Unit = (s: Server, i: number) => Promise<number>;

const health: Unit = async (s) => {
  const r = await call(s, 'GET', 'sys/health', undefined, null);
  if (r.status !== 200) throw new Error(`${s.name} sys/health: ${r.status}`);
  return 1;
};

const tokenPair: Unit = async (s) => {
  const c = await call(s, 'POST', 'auth/token/create', { ttl: '1h', policies: ['default'] });
  if (c.status !== 200) throw new Error(`${s.name} token create: ${c.status} ${JSON.stringify(c.json)}`);
  const l = await call(s, 'POST', 'auth/token/lookup', { token: c.json?.auth?.client_token });
  if (l.status !== 200) throw new Error(`${s.name} token lookup: ${l.status}`);
  return 2;
};

function loginUnit(bodies: string[]): Unit {
  return async (s, i) => {
    const r = await s.pool.request({ method: 'POST', path: `/v1/auth/${s.mount}/login`, headers: { 'content-type': 'application/json' }, body: bodies[i % bodies.length] });
    const text = await r.body.text();
    if (r.statusCode !== 200) throw new Error(`${s.name} login: ${r.statusCode} ${text}`);
    return 1;
  };
}

/** `CONCURRENCY` clients run units back to back for the slice; returns units per second and requests made. */
async function slice(s: Server, unit: Unit, seconds: number): Promise<{ units: number; requests: number; seconds: number }> {
  let next = 0;
  let units = 0;
  let requests = 0;
  const deadline = Date.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) {
        // (Not `requests += await …`: that reads `requests` before the await and loses the other clients' counts.)
        const n = await unit(s, next++);
        requests += n;
        units++;
      }
    }),
  );
  return { units, requests, seconds: (performance.now() - t0) / 1000 };
}

const cpu = (s: Server) => s.pids().reduce((sum, pid) => sum + cpuSeconds(pid), 0);

/** Pid of the `bao server` whose arguments include `arg`, and its children (the plugin). Read from ps; nothing is signalled. */
function baoPids(arg: string): () => number[] {
  const ps = () =>
    execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
      .split('\n')
      .map((l) => l.trim().split(/\s+/));
  const server = ps().find((f) => f.slice(2).includes(arg));
  if (!server) throw new Error(`no bao process with ${arg}`);
  const pid = Number(server[0]);
  return () => [
    pid,
    ...ps()
      .filter((f) => Number(f[1]) === pid)
      .map((f) => Number(f[0])),
  ];
}

async function main() {
  const tools = realServerTools();
  const here = resolve(__dirname, '..');
  const entry = buildEngine(here);
  const emu = await emulatorModule(entry).startCloudEmulator({ description: cloudDescription, requireAuth: false });
  // --engine-dir /dev/shm puts the engine's store on tmpfs (fdatasync returns at once): isolates the disk's share.
  const engineDirArg = process.argv.indexOf('--engine-dir');
  const dataDir = mkdtempSync(join(engineDirArg === -1 ? tmpdir() : process.argv[engineDirArg + 1], 'keyward-side-by-side-'));
  const credentials = join(dataDir, 'keyward-sa.json');
  writeFileSync(credentials, JSON.stringify(emu.keyFile(SA.keyward.email)), { mode: 0o600 });
  const engineProc = await startEngineProcess({ dataDir: join(dataDir, 'engine'), rootToken: ROOT_TOKEN, entry, env: { GOOGLE_APPLICATION_CREDENTIALS: credentials } });
  const bao = await startOpenBaoDev({ pluginEnv: [`GOOGLE_APPLICATION_CREDENTIALS=${credentials}`] });
  // OpenBao with durable storage too (a one-node raft cluster: bolt, fsync per commit), since -dev keeps
  // everything in memory and the engine writes each token to disk before it answers.
  const raft = await startOpenBaoCluster({ size: 1 });
  const raftNode = await raft.leader();
  await registerGcpPlugin(raftNode.url, raft.rootToken, [`GOOGLE_APPLICATION_CREDENTIALS=${credentials}`]);
  const servers: Server[] = [
    {
      name: 'engine',
      tag: 'E',
      url: engineProc.url,
      token: ROOT_TOKEN,
      pids: () => [engineProc.pid],
      mount: 'cloud',
      pool: new Pool(engineProc.url, { connections: CONCURRENCY }),
    },
    {
      name: 'openbao -dev',
      tag: 'Od',
      url: bao.url,
      token: bao.token,
      pids: baoPids(`-dev-listen-address=127.0.0.1:${new URL(bao.url).port}`),
      mount: 'gcp',
      pool: new Pool(bao.url, { connections: CONCURRENCY }),
    },
    {
      name: 'openbao raft',
      tag: 'Or',
      url: raftNode.url,
      token: raft.rootToken,
      pids: baoPids(`-config=${join(raftNode.dir, 'config.hcl')}`),
      mount: 'gcp',
      pool: new Pool(raftNode.url, { connections: CONCURRENCY }),
    },
  ];
  const endpoints = { api: emu.url, iam: `${emu.url}/`, crm: `${emu.url}/`, compute: `${emu.url}/compute/v1/` };
  const load0 = loadavg();
  try {
    for (const s of servers) {
      const type = s.name === 'engine' ? 'cloud' : 'gcp';
      for (const [path, body] of [
        [`sys/auth/${s.mount}`, { type }],
        [`auth/${s.mount}/config`, { custom_endpoint: endpoints }],
        [`auth/${s.mount}/role/bench`, { type: 'iam', bound_service_accounts: [SA.app.email], token_ttl: '1h' }],
      ] as const) {
        const r = await call(s, 'POST', path, body);
        if (r.status >= 300) throw new Error(`${s.name} ${path}: ${r.status} ${JSON.stringify(r.json)}`);
      }
    }
    // Distinct JWTs (a jti each), minted up front: nothing can be served from a cache of verified tokens.
    const bodies = Array.from({ length: 20_000 }, (_, i) =>
      JSON.stringify({ role: 'bench', jwt: emu.mintServiceAccountJwt({ account: SA.app.email, audience: 'http://vault/bench', ttl: 900, claims: { jti: `bench-${i}` } }) }),
    );
    const workloads: [string, Unit][] = [
      ['GET sys/health', health],
      ['token create + lookup (2 requests)', tokenPair],
      ['GCP iam login (real plugin on OpenBao)', loginUnit(bodies)],
    ];
    const lines: string[] = [];
    for (const [name, unit] of workloads) {
      const totals = servers.map(() => ({ units: 0, requests: 0, seconds: 0, cpu: 0 }));
      const perSlice: string[] = [];
      const n = servers.length;
      // One unmeasured slice each first (JIT, plugin start, first token fetch), then the servers in turn.
      for (let k = -n; k < n * SLICES; k++) {
        const i = (k + n) % n;
        const c0 = cpu(servers[i]);
        const r = await slice(servers[i], unit, k < 0 ? WARMUP_SECONDS : SLICE_SECONDS);
        if (k < 0) continue;
        totals[i].units += r.units;
        totals[i].requests += r.requests;
        totals[i].seconds += r.seconds;
        totals[i].cpu += cpu(servers[i]) - c0;
        perSlice.push(`${servers[i].tag} ${Math.round(r.units / r.seconds)}`);
      }
      const rate = (i: number) => totals[i].units / totals[i].seconds;
      const cpuPer = (i: number) => (totals[i].cpu / totals[i].requests) * 1e6;
      lines.push(
        `${name}:`,
        `  slices (units/s; E engine, Od openbao -dev, Or openbao raft): ${perSlice.join(' | ')}`,
        ...servers.map((sv, i) => `  ${sv.name.padEnd(12)} ${Math.round(rate(i)).toLocaleString('en-US').padStart(7)}/s, server CPU ${cpuPer(i).toFixed(0)} µs/request`),
        ...servers
          .slice(1)
          .map(
            (sv, j) =>
              `  engine / ${sv.name}: ${(rate(0) / rate(j + 1)).toFixed(2)} throughput, ${(cpuPer(j + 1) / cpuPer(0)).toFixed(2)} CPU (its CPU per request / the engine's)`,
          ),
      );
    }
    const load1 = loadavg();
    process.stdout.write(
      [
        `keyward engine (compiled, SQLite + fsync) vs OpenBao ${tools.baoVersion} -dev (in-memory) and one-node raft (fsync), with ${tools.plugin.module}@${tools.plugin.version}${tools.plugin.fallback ? ' (FALLBACK plugin)' : ''}`,
        `${CONCURRENCY} concurrent keep-alive clients per server, ${SLICES} interleaved slices of ${SLICE_SECONDS}s each, Node ${process.version}`,
        ...lines,
        `load average before ${load0.map((l) => l.toFixed(2)).join(' ')}, after ${load1.map((l) => l.toFixed(2)).join(' ')} (2 cores: above 2 the figures are noisy)`,
      ].join('\n') + '\n',
    );
  } finally {
    await Promise.all(servers.map((s) => s.pool.close()));
    engineProc.stop();
    await bao.close();
    await raft.close();
    await emu.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
