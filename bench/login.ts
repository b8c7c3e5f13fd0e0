// Cloud auth login throughput over HTTP with the fresh-lookup default (every login asks the
// provider for the service account; key documents kept per their Cache-Control), for service and
// batch tokens, printed beside the raw node:crypto RS256 verification rate, jose's jwtVerify rate
// with a kept key (at the bench's concurrency, and one at a time), and the emulator's own request
// rate for the lookup each login makes, all measured in the same run. The engine runs as a child
// process (`keyward server --dev`); the emulator and the load generator run here. Every login
// carries its own JWT from a pool of distinct ones, so nothing can be served from a cache of
// verified tokens. The phases are interleaved over several rounds and the medians decide, because
// this shared 2-core machine changes speed from one minute to the next.
//
//   npx tsx bench/login.ts [--rounds 3] [--seconds 3] [--concurrency 64] [--engine compiled|source]
// The engine runs compiled by tsc, as shipped (bench/engine-build.ts); `--engine source` runs it
// through tsx, whose transform costs each request CPU that the installed package does not pay.
//   BENCH_ENGINE_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles the engine process.

import { createPublicKey, verify } from 'node:crypto';
import { jwtVerify } from 'jose';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import type { startCloudEmulator } from '../src/cloud-emulator';
import { cloudDescription, SA, audience, emulatorEndpoints, login, mountCloudAuth, writeRoles } from '../test/support/cloud-fixture';
import { ROOT_TOKEN } from '../test/support/engine';
import { IdpClient } from '../src/idp-client/client';
import { verifyLoginJwt } from '../src/engine/auth/cloud/jwt';
import { loginIam } from '../src/engine/auth/cloud/login-iam';
import { applyRoleWrite } from '../src/schema/cloud-role-write';
import { parseFields } from '../src/schema/fields';
import { roleWriteShape } from '../src/schema/cloud-role';
import { startEngineProcess } from '../test/support/engine-process';
import { buildEngine, emulatorModule } from './engine-build';
import { cpuSeconds } from './process-cpu';
import { load, loginBodies } from './login-load';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? def : Number(process.argv[i + 1]);
};
const SECONDS = arg('seconds', 3);
const ROUNDS = arg('rounds', 3);
const CONCURRENCY = arg('concurrency', 64);
/** HTTP/1.1 pipelining depth per connection: fewer syscalls on both sides at the same concurrency. */
const PIPELINING = arg('pipelining', 1);
const ENGINE = process.argv.includes('--engine') ? process.argv[process.argv.indexOf('--engine') + 1] : 'compiled';

function cryptoVerifyRate(jwt: string, pem: string, ms = 1000): number {
  const key = createPublicKey(pem);
  const [h, p, s] = jwt.split('.');
  const input = Buffer.from(`${h}.${p}`);
  const sig = Buffer.from(s, 'base64url');
  let n = 0;
  const t0 = process.hrtime.bigint();
  const end = Date.now() + ms;
  while (Date.now() < end) {
    for (let i = 0; i < 100; i++) if (verify('RSA-SHA256', input, key, sig)) n++;
  }
  return n / (Number(process.hrtime.bigint() - t0) / 1e9);
}

/**
 * jose's jwtVerify with the key object kept (as the login path does), `inFlight` verifications at
 * a time. jose verifies through WebCrypto, which runs each verification on libuv's thread pool: one
 * at a time measures that hand-off's latency; the engine has many logins in flight, so the rate at
 * the bench's concurrency is the one that compares with raw verify. Also returns the CPU per
 * verification (all threads), the fair comparison with raw verify's one core.
 */
async function joseVerifyRate(jwt: string, pem: string, nowMs: number, inFlight: number, ms = 1000): Promise<{ rate: number; cpuUs: number }> {
  const key = createPublicKey(pem);
  const opts = { algorithms: ['RS256'], currentDate: new Date(nowMs), clockTolerance: 60, requiredClaims: ['exp'] };
  await jwtVerify(jwt, key, opts);
  let n = 0;
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const end = Date.now() + ms;
  while (Date.now() < end) {
    await Promise.all(Array.from({ length: inFlight }, () => jwtVerify(jwt, key, opts)));
    n += inFlight;
  }
  const c = process.cpuUsage(c0);
  return { rate: n / (Number(process.hrtime.bigint() - t0) / 1e9), cpuUs: (c.user + c.system) / n };
}

/** The cloud method's own work per login (verify + authorize, one provider lookup), without token issue or HTTP. */
async function methodRate(emu: Awaited<ReturnType<typeof startCloudEmulator>>, jwt: string): Promise<number> {
  const clock = { now: () => Date.now(), setTimer: () => ({ cancel: () => undefined }) };
  const client = new IdpClient({ endpoints: emulatorEndpoints(emu), credentials: emu.keyFile(SA.keyward.email), clock, env: {} });
  const { role } = applyRoleWrite(undefined, parseFields(roleWriteShape, { type: 'iam', bound_service_accounts: SA.app.email }).values, { newRoleId: 'r' });
  const once = async () => loginIam(client, {}, role, 'svc', await verifyLoginJwt(jwt, 'iam', 'svc', client, clock.now()), clock.now());
  await once();
  let n = 0;
  const t0 = process.hrtime.bigint();
  const end = Date.now() + 2000;
  while (Date.now() < end) {
    for (let i = 0; i < 100; i++) await once();
    n += 100;
  }
  return n / (Number(process.hrtime.bigint() - t0) / 1e9);
}

async function main() {
  const loadBefore = loadavg()[0];
  // No bearer check in the emulator, so its own rate can be measured with plain requests.
  const entry = ENGINE === 'source' ? undefined : buildEngine(join(__dirname, '..'));
  const emu = await emulatorModule(entry).startCloudEmulator({ description: cloudDescription, requireAuth: false });
  const emuPool = new Pool(emu.url, { connections: CONCURRENCY });
  const saPath = `projects/-/serviceAccounts/${encodeURIComponent(SA.app.email)}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'keyward-bench-'));
  const nodeArgs = (process.env.BENCH_ENGINE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const engine = await startEngineProcess({ dataDir, rootToken: ROOT_TOKEN, nodeArgs, entry });
  const pool = new Pool(engine.url, { connections: Math.max(1, Math.ceil(CONCURRENCY / PIPELINING)), pipelining: PIPELINING });
  try {
    await mountCloudAuth(engine, emu);
    await writeRoles(engine, {
      svc: { type: 'iam', bound_service_accounts: SA.app.email, token_type: 'service', token_ttl: '10m' },
      batch: { type: 'iam', bound_service_accounts: SA.app.email, token_type: 'batch', token_ttl: '10m' },
    });
    const svcBodies = loginBodies(emu, 'svc', 512);
    const batchBodies = loginBodies(emu, 'batch', 512);
    const svcJwt = emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('svc'), ttl: 900 });
    // Warm the key-document cache (one login each).
    for (const role of ['svc', 'batch']) {
      const r = await login(engine, role, emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience(role), ttl: 900 }));
      if (r.status !== 200) throw new Error(`warm-up login failed: ${r.status} ${r.text}`);
    }
    const pem = emu.keys.accounts.get(SA.app.email)!.user[0].certPem;
    const method = await methodRate(emu, svcJwt);
    const provider = { ...emu.counts };
    const measure = async (method: 'GET' | 'POST', path: string, bodies?: string[]) => {
      const [c0, m0, b0] = [cpuSeconds(engine.pid), cpuSeconds(engine.pid, true), process.cpuUsage()];
      const r = await load(pool, { method, path, bodies, seconds: SECONDS, concurrency: CONCURRENCY });
      const b = process.cpuUsage(b0);
      // Engine CPU per request, all threads and the event loop alone: the event loop is the one
      // thread that caps throughput, so when it is near 1 s per second the engine sets the pace.
      const perReq = (s: number) => (s / (r * SECONDS)) * 1e6;
      // This process (load generator and emulator) shares the 2 cores: its CPU per request bounds the rate too.
      return { rate: r, cpuUs: perReq(cpuSeconds(engine.pid) - c0), loopUs: perReq(cpuSeconds(engine.pid, true) - m0), benchUs: perReq((b.user + b.system) / 1e6) };
    };
    // Warm-up under load, not measured: the engine's JIT needs a few seconds of logins.
    for (const bodies of [svcBodies, batchBodies]) await load(pool, { method: 'POST', path: 'auth/cloud/login', bodies, seconds: 2, concurrency: CONCURRENCY });
    type M = Awaited<ReturnType<typeof measure>>;
    // The emulator's own rate for the lookup a login makes; its calls are not counted as the engine's.
    let ownCalls = 0;
    const emulatorRate = async () => {
      const c0 = emu.counts['iam-get'] ?? 0;
      const r = await load(emuPool, { method: 'GET', path: saPath, seconds: SECONDS, concurrency: CONCURRENCY });
      ownCalls += (emu.counts['iam-get'] ?? 0) - c0;
      return r;
    };
    type Jose = Awaited<ReturnType<typeof joseVerifyRate>>;
    const rounds: { raw: number; jose: Jose; joseSerial: Jose; emulator: number; health: M; service: M; batch: M }[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      rounds.push({
        raw: cryptoVerifyRate(svcJwt, pem),
        jose: await joseVerifyRate(svcJwt, pem, Date.now(), CONCURRENCY),
        joseSerial: await joseVerifyRate(svcJwt, pem, Date.now(), 1),
        emulator: await emulatorRate(),
        health: await measure('GET', 'sys/health'),
        service: await measure('POST', 'auth/cloud/login', svcBodies),
        batch: await measure('POST', 'auth/cloud/login', batchBodies),
      });
    }
    const loadAfter = loadavg()[0];
    const median = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    };
    const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
    const pick = (k: 'health' | 'service' | 'batch') => ({
      rate: median(rounds.map((r) => r[k].rate)),
      cpuUs: median(rounds.map((r) => r[k].cpuUs)),
      loopUs: median(rounds.map((r) => r[k].loopUs)),
      benchUs: median(rounds.map((r) => r[k].benchUs)),
      each: rounds.map((r) => fmt(r[k].rate)).join(', '),
    });
    const raw = median(rounds.map((r) => r.raw));
    const joseRate = median(rounds.map((r) => r.jose.rate));
    const joseCpu = median(rounds.map((r) => r.jose.cpuUs));
    const joseSerial = median(rounds.map((r) => r.joseSerial.rate));
    const emulator = median(rounds.map((r) => r.emulator));
    const [health, service, batch] = [pick('health'), pick('service'), pick('batch')];
    const cpu = (m: { cpuUs: number; loopUs: number; benchUs: number }) =>
      (Number.isFinite(m.cpuUs) ? `engine CPU ${Math.round(m.cpuUs)} µs/request, ${Math.round(m.loopUs)} on the event loop` : 'engine CPU n/a') +
      `; load generator + emulator CPU ${Math.round(m.benchUs)} µs/request`;
    const iamGets = (emu.counts['iam-get'] ?? 0) - (provider['iam-get'] ?? 0) - ownCalls;
    const logins = rounds.reduce((n, r) => n + (r.service.rate + r.batch.rate) * SECONDS, 0);
    const keyDocs = (emu.counts.x509 ?? 0) + (emu.counts.certs ?? 0) - (provider.x509 ?? 0) - (provider.certs ?? 0);
    process.stdout.write(
      [
        `cloud auth login over HTTP (${CONCURRENCY} concurrent, ${ROUNDS} interleaved rounds of ${SECONDS}s; medians, each round in brackets)`,
        // Other work on this shared machine sets the figures as much as the code does: say how much there was.
        `  machine: ${cpus().length} cores, 1-minute load average ${loadBefore.toFixed(2)} before the run, ${loadAfter.toFixed(2)} after; engine ${ENGINE === 'source' ? 'run through tsx' : 'compiled (as shipped)'}`,
        `  raw node:crypto RS256 verify : ${fmt(raw)}/s  [${rounds.map((r) => fmt(r.raw)).join(', ')}] (baseline, same run, one core)`,
        `  jose jwtVerify (kept key)    : ${fmt(joseRate)}/s  [${rounds.map((r) => fmt(r.jose.rate)).join(', ')}] with ${CONCURRENCY} in flight (WebCrypto on the thread pool), ${(joseRate / raw).toFixed(3)} of raw verify; CPU ${Math.round(joseCpu)} µs/verify against raw's ${Math.round(1e6 / raw)}; one at a time ${fmt(joseSerial)}/s (the thread hand-off's latency)`,
        `  emulator serviceAccounts.get : ${fmt(emulator)}/s  [${rounds.map((r) => fmt(r.emulator)).join(', ')}] (the provider's own ceiling here)`,
        `  cloud method pipeline only   : ${fmt(method)}/s  (verify + authorize in-process, one login at a time: bound by the provider round trip)`,
        `  GET sys/health (HTTP ceiling): ${fmt(health.rate)}/s  [${health.each}]; ${cpu(health)}`,
        `  service-token logins         : ${fmt(service.rate)}/s  [${service.each}]; ${(service.rate / raw).toFixed(3)} of raw verify; ${cpu(service)}`,
        `  batch-token logins           : ${fmt(batch.rate)}/s  [${batch.each}]; ${(batch.rate / raw).toFixed(3)} of raw verify; ${cpu(batch)}`,
        `  provider calls during the run: ${iamGets} serviceAccounts.get for ~${fmt(logins)} measured logins (fresh on every login; the JIT warm-up adds more), ${keyDocs} key-document fetches`,
        `  target: >= 3,000 service-token logins/s (median) -> ${service.rate >= 3000 ? 'met' : 'NOT met'}`,
      ].join('\n') + '\n',
    );
  } finally {
    await pool.close();
    await emuPool.close();
    engine.stop();
    await emu.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
