// A soak of the engine on Node 24 (issue 23): for a few minutes, service-token logins and writes
// run without pause while four snapshot configs (local, cloudone-store on s3rver, cloudtwo-store
// on the GCS emulator, cloudthree-store on azurite) run every few seconds; in turns, one cloud store
// is SIGSTOPped long enough to force its attempt past the deadline (the attempt aborts), then
// resumed; every so often the store is restored from a snapshot taken through the API. Fails
// (exit 1) on any abnormal exit of the engine (a signal such as SIGABRT, or a non-zero code), on
// a failed login or write, on a restore that does not answer 204, on a config that does not
// recover after its store resumes, or on a SIGTERM that does not stop the engine cleanly.
//
//   npx tsx bench/soak.ts [--seconds 180] [--node tools/node24/node_modules/.bin/node]
// The engine runs compiled (bench/engine-build.ts) on --node (default: tools/node24's Node 24 when
// installed, else the Node running this script); the stores and the load run on this one.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { Pool } from 'undici';
import { cloudDescription, SA, mountCloudAuth, writeRoles } from '../test/support/cloud-fixture';
import { api, ROOT_TOKEN } from '../test/support/engine';
import { startEngineProcess } from '../test/support/engine-process';
import { startStoreProcess, type StoreKind } from '../test/support/object-stores';
import { buildEngine, emulatorModule } from './engine-build';
import { loginBodies } from './login-load';
import { cpuSeconds } from './process-cpu';

const opt = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? def : process.argv[i + 1];
};
const here = resolve(__dirname, '..');
const NODE24 = join(here, 'tools', 'node24', 'node_modules', '.bin', 'node');
const NODE = resolve(opt('node', existsSync(NODE24) ? NODE24 : process.execPath));
const SECONDS = Number(opt('seconds', '180'));
const FLOOR_MS = 1500;
const STATUS = 'sys/storage/raft/snapshot-auto/status';
const CONFIG = 'sys/storage/raft/snapshot-auto/config';
const TYPES: Record<StoreKind, string> = { s3: 'cloudone-store', gcs: 'cloudtwo-store', azure: 'cloudthree-store' };
const KINDS: StoreKind[] = ['s3', 'gcs', 'azure'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (line: string) => process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);

async function main() {
  const version = spawnSync(NODE, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const entry = buildEngine(here);
  const emu = await emulatorModule(entry).startCloudEmulator({ description: cloudDescription });
  const dir = mkdtempSync(join(tmpdir(), 'keyward-soak-'));
  const stores = await Promise.all(KINDS.map((k) => startStoreProcess(k)));
  const engine = await startEngineProcess({ dataDir: join(dir, 'data'), rootToken: ROOT_TOKEN, entry, node: NODE, env: { KEYWARD_SNAPSHOT_ATTEMPT_FLOOR_MS: String(FLOOR_MS) } });
  let abnormal: string | undefined;
  let stopping = false;
  engine.child.once('exit', (code, signal) => {
    if (!stopping) abnormal = `the engine exited during the soak (code ${code}, signal ${signal})`;
  });
  const pool = new Pool(engine.url, { connections: 16 });
  const failures: string[] = [];
  const counts = { logins: 0, writes: 0, stalls: 0, restores: 0 };
  try {
    say(
      `soak: ${SECONDS}s, engine on Node ${version} (${NODE}), load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    await mountCloudAuth(engine, emu);
    await writeRoles(engine, { svc: { type: 'iam', bound_service_accounts: SA.app.email, token_type: 'service', token_ttl: '10m' } });
    const configs: Record<string, Record<string, unknown>> = {
      local: { storage_type: 'local', interval: 2, retain: 3, path_prefix: join(dir, 'local'), local_max_space: 1e9 },
    };
    KINDS.forEach((k, i) => (configs[k] = { storage_type: TYPES[k], interval: 2, retain: 3, path_prefix: `soak-${k}/`, ...stores[i].fields }));
    for (const [name, body] of Object.entries(configs)) {
      const r = await api(engine, 'POST', `${CONFIG}/${name}`, { body });
      if (r.status !== 204) throw new Error(`config ${name}: ${r.status} ${r.text}`);
    }
    const bodies = loginBodies(emu, 'svc', 256);
    const deadline = Date.now() + SECONDS * 1000;
    const running = () => Date.now() < deadline && !abnormal;

    // Logins: 8 clients back to back (each issues and persists a service token).
    const logins = Array.from({ length: 8 }, async (_, c) => {
      for (let i = c; running(); i += 8) {
        const r = await pool.request({ method: 'POST', path: '/v1/auth/cloud/login', body: bodies[i % bodies.length], headers: { 'content-type': 'application/json' } });
        await r.body.dump();
        if (r.statusCode === 200) counts.logins++;
        else failures.push(`login answered ${r.statusCode}`);
      }
    });
    // Writes: 2 clients writing and deleting policies.
    const writes = Array.from({ length: 2 }, async (_, c) => {
      for (let i = 0; running(); i++) {
        const name = `soak-${c}-${i % 50}`;
        const r = await pool.request({
          method: 'PUT',
          path: `/v1/sys/policy/${name}`,
          body: JSON.stringify({ policy: `path "secret/${name}" { capabilities = ["read"] }` }),
          headers: { 'x-vault-token': ROOT_TOKEN, 'content-type': 'application/json' },
        });
        await r.body.dump();
        if (r.statusCode === 204) counts.writes++;
        else failures.push(`policy write answered ${r.statusCode}`);
      }
    });
    // Chaos: in turns, stall a cloud store past the attempt deadline, then resume it; restore.
    const chaos = (async () => {
      // The attempt deadline grows with the archive (deadline.ts: 1 MiB/s beyond the floor), and
      // the store grows with every login's token: the wait for the abort follows the last archive.
      let archiveBytes = 0;
      for (let turn = 0; running(); turn++) {
        const k = KINDS[turn % KINDS.length];
        const s = stores[KINDS.indexOf(k)];
        process.kill(s.pid, 'SIGSTOP');
        // The attempt in flight (or the next one) must abort at its deadline and say so.
        const stoppedAt = Date.now();
        const limit = 2000 + FLOOR_MS + Math.ceil((archiveBytes / (1024 * 1024)) * 1000) + 8000;
        let aborted = false;
        while (!aborted && Date.now() - stoppedAt < limit) {
          const st = (await api(engine, 'GET', `${STATUS}/${k}`)).body?.data as { consecutive_errors?: number } | undefined;
          aborted = (st?.consecutive_errors ?? 0) >= 1;
          if (!aborted) await sleep(100);
        }
        const abortedAfter = Date.now() - stoppedAt;
        process.kill(s.pid, 'SIGCONT');
        if (aborted) counts.stalls++;
        else failures.push(`a stalled ${k} store did not show in its status within ${limit} ms`);
        const snap = await fetch(`${engine.url}/v1/sys/storage/raft/snapshot`, { headers: { 'x-vault-token': ROOT_TOKEN } });
        const archive = Buffer.from(await snap.arrayBuffer());
        archiveBytes = archive.length;
        if (snap.status !== 200) failures.push(`snapshot save answered ${snap.status}`);
        else {
          const r = await api(engine, 'POST', 'sys/storage/raft/snapshot', { rawBody: archive });
          if (r.status === 204) counts.restores++;
          else failures.push(`restore answered ${r.status} ${r.text.slice(0, 200)}`);
        }
        say(
          `turn ${turn}: ${k} stalled (attempt aborted: ${aborted}, after ${abortedAfter} ms), resumed, store restored (${(archiveBytes / 1e6).toFixed(1)} MB); ${counts.logins} logins, ${counts.writes} writes, ${counts.restores} restores so far; engine CPU ${cpuSeconds(engine.pid).toFixed(1)} s`,
        );
        await sleep(3000);
      }
    })();
    await Promise.all([...logins, ...writes, chaos]);
    if (abnormal) throw new Error(abnormal);

    // Every config recovers once its store answers again.
    for (const name of Object.keys(configs)) {
      const end = Date.now() + 30_000;
      for (;;) {
        const s = (await api(engine, 'GET', `${STATUS}/${name}`)).body?.data as { consecutive_errors?: number; last_snapshot_url?: string } | undefined;
        if (s && s.consecutive_errors === 0 && s.last_snapshot_url) break;
        if (Date.now() > end) throw new Error(`config ${name} did not recover: ${JSON.stringify(s)}`);
        await sleep(250);
      }
    }
    if (failures.length > 0) throw new Error(`${failures.length} failed requests, first: ${failures.slice(0, 5).join('; ')}`);
    // A clean stop: SIGTERM ends the engine with status 0, within seconds, and no signal.
    stopping = true;
    const exited = new Promise<[number | null, string | null]>((r) => engine.child.once('exit', (c, sig) => r([c, sig])));
    engine.child.kill('SIGTERM');
    const [code, signal] = await Promise.race([exited, sleep(15_000).then((): [null, string] => [null, 'none within 15 s'])]);
    if (code !== 0) throw new Error(`SIGTERM: the engine ended with code ${code}, signal ${signal}`);
    say(
      `soak passed: ${counts.logins} logins, ${counts.writes} writes, ${counts.stalls} forced aborts, ${counts.restores} restores, clean exit on Node ${version}; load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    stopping = true;
    await pool.close().catch(() => undefined);
    if (engine.child.exitCode === null && engine.child.signalCode === null) engine.child.kill('SIGKILL');
    await Promise.all(stores.map((s) => s.close()));
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`soak FAILED: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
