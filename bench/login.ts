// Cloud auth login throughput over HTTP with warm caches (service and batch tokens), printed beside
// the raw node:crypto RS256 verification rate measured in the same run. The engine runs as a child
// process (`keyward server --dev`); the emulator and the load generator run here.
//
//   npx tsx bench/login.ts [--seconds 5] [--concurrency 32]
//   BENCH_ENGINE_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles the engine process.

import { createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { startCloudEmulator } from '../src/cloud-emulator';
import { cloudDescription, SA, audience, emulatorEndpoints } from '../test/support/cloud-fixture';
import { CloudProviderClient } from '../src/provider/client';
import { verifyLoginJwt } from '../src/engine/auth/cloud/jwt';
import { loginIam } from '../src/engine/auth/cloud/login-iam';
import { applyRoleWrite } from '../src/schema/cloud-role-write';
import { parseFields } from '../src/schema/fields';
import { roleWriteShape } from '../src/schema/cloud-role';
import { startEngineProcess } from '../test/support/engine-process';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? def : Number(process.argv[i + 1]);
};
const SECONDS = arg('seconds', 5);
const CONCURRENCY = arg('concurrency', 32);
const TOKEN = 'bench-root';
/** HTTP/1.1 pipelining depth per connection: fewer syscalls on both sides at the same concurrency. */
const PIPELINING = arg('pipelining', 1);


/** CPU seconds (user + system, all threads) the process has used so far; Linux only. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

async function call(pool: Pool, method: 'POST' | 'GET', path: string, body?: unknown, token: string | null = TOKEN) {
  const res = await pool.request({
    method,
    path: `/v1/${path}`,
    headers: { ...(token ? { 'x-vault-token': token } : {}), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, text };
}

async function rate(pool: Pool, method: 'GET' | 'POST', path: string, payload?: unknown): Promise<number> {
  const body = payload === undefined ? undefined : JSON.stringify(payload);
  let ok = 0;
  let failed = 0;
  const deadline = Date.now() + SECONDS * 1000;
  const worker = async () => {
    while (Date.now() < deadline) {
      const res = await pool.request({ method, path: `/v1/${path}`, headers: { 'content-type': 'application/json' }, body });
      await res.body.dump();
      if (res.statusCode === 200) ok++;
      else failed++;
    }
  };
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  if (failed > 0) throw new Error(`${failed} requests to ${path} failed`);
  return ok / secs;
}

function cryptoVerifyRate(jwt: string, pem: string): number {
  const key = createPublicKey(pem);
  const [h, p, s] = jwt.split('.');
  const input = Buffer.from(`${h}.${p}`);
  const sig = Buffer.from(s, 'base64url');
  let n = 0;
  const t0 = process.hrtime.bigint();
  const end = Date.now() + 2000;
  while (Date.now() < end) {
    for (let i = 0; i < 100; i++) if (verify('RSA-SHA256', input, key, sig)) n++;
  }
  return n / (Number(process.hrtime.bigint() - t0) / 1e9);
}

/** The cloud method's own work per login (verify + authorize, warm caches), without token issue or HTTP. */
async function methodRate(emu: Awaited<ReturnType<typeof startCloudEmulator>>, jwt: string): Promise<number> {
  const clock = { now: () => Date.now(), setTimer: () => ({ cancel: () => undefined }) };
  const client = new CloudProviderClient({ endpoints: emulatorEndpoints(emu), credentials: emu.keyFile(SA.keyward.email), clock, env: {} });
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
  const emu = await startCloudEmulator({ description: cloudDescription });
  const dataDir = mkdtempSync(join(tmpdir(), 'keyward-bench-'));
  const nodeArgs = (process.env.BENCH_ENGINE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const engine = await startEngineProcess({ dataDir, rootToken: TOKEN, nodeArgs });
  const pool = new Pool(engine.url, { connections: Math.max(1, Math.ceil(CONCURRENCY / PIPELINING)), pipelining: PIPELINING });
  try {
    const setup = [
      await call(pool, 'POST', 'sys/auth/cloud', { type: 'cloud' }),
      await call(pool, 'POST', 'auth/cloud/config', {
        credentials: JSON.stringify(emu.keyFile(SA.keyward.email)),
        custom_endpoint: { api: emu.url, iam: emu.url, crm: emu.url, compute: emu.url },
      }),
      await call(pool, 'POST', 'auth/cloud/role/svc', { type: 'iam', bound_service_accounts: SA.app.email, token_type: 'service', token_ttl: '10m' }),
      await call(pool, 'POST', 'auth/cloud/role/batch', { type: 'iam', bound_service_accounts: SA.app.email, token_type: 'batch', token_ttl: '10m' }),
    ];
    for (const r of setup) if (r.status >= 300) throw new Error(`setup failed: ${r.status} ${r.text}`);
    const lifetime = 900;
    const svcJwt = emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('svc'), ttl: lifetime });
    const batchJwt = emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('batch'), ttl: lifetime });
    // Warm the key and lookup caches (one login each), then a short warm-up of the JIT.
    for (const [role, jwt] of [['svc', svcJwt], ['batch', batchJwt]]) {
      const r = await call(pool, 'POST', 'auth/cloud/login', { role, jwt }, null);
      if (r.status !== 200) throw new Error(`warm-up login failed: ${r.status} ${r.text}`);
    }
    const pem = emu.keys.accounts.get(SA.app.email)!.user[0].certPem;
    const raw = cryptoVerifyRate(svcJwt, pem);
    const method = await methodRate(emu, svcJwt);
    const provider = { ...emu.counts };
    const measure = async (method: 'GET' | 'POST', path: string, payload?: unknown) => {
      const c0 = cpuSeconds(engine.pid);
      const r = await rate(pool, method, path, payload);
      // Engine CPU per request: tells whether the engine or the load generator sets the pace.
      return { rate: r, cpuUs: ((cpuSeconds(engine.pid) - c0) / (r * SECONDS)) * 1e6 };
    };
    const healthM = await measure('GET', 'sys/health');
    const serviceM = await measure('POST', 'auth/cloud/login', { role: 'svc', jwt: svcJwt });
    const batchM = await measure('POST', 'auth/cloud/login', { role: 'batch', jwt: batchJwt });
    const [health, service, batch] = [healthM.rate, serviceM.rate, batchM.rate];
    const cpu = (m: { cpuUs: number }) => (Number.isFinite(m.cpuUs) ? `, engine CPU ${Math.round(m.cpuUs)} µs/request` : '');
    const calls = Object.entries(emu.counts).reduce((n, [k, v]) => n + v - (provider[k] ?? 0), 0);
    const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
    process.stdout.write(
      [
        `cloud auth login over HTTP (${CONCURRENCY} concurrent, ${SECONDS}s each, warm caches)`,
        `  raw node:crypto RS256 verify : ${fmt(raw)}/s (baseline, same run)`,
        `  cloud method pipeline only   : ${fmt(method)}/s  (verify + authorize in-process, no token, no HTTP)`,
        `  GET sys/health (HTTP ceiling): ${fmt(health)}/s${cpu(healthM)}`,
        `  service-token logins         : ${fmt(service)}/s  (${(service / raw).toFixed(3)} of raw verify${cpu(serviceM)})`,
        `  batch-token logins           : ${fmt(batch)}/s  (${(batch / raw).toFixed(3)} of raw verify${cpu(batchM)})`,
        `  provider calls during the run: ${calls} (caches warm)`,
        `  target: >= 4,000 service-token logins/s -> ${service >= 4000 ? 'met' : 'NOT met'}`,
      ].join('\n') + '\n',
    );
  } finally {
    await pool.close();
    engine.stop();
    await emu.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
