// Snapshot throughput and memory: a store of --entries entries (default 100,000 of ~1 KB, about
// 100 MB) archived and streamed to a local directory and to each object-store emulator (S3:
// s3rver, GCS: our JSON-API emulator, Azure Blob: azurite), beside the raw SDK upload of an
// equal-sized in-memory buffer to the same emulator, measured in the same run. Timing rounds
// interleave snapshot and raw upload and compare medians, because the machine is shared and noisy:
// --rounds (default 5) at the full size and 4x as many at the quarter size (the same time per size:
// shorter runs are noisier), after one untimed warm-up round per size and target. Peak RSS growth
// is measured in a first pass of snapshots only, at a quarter of the size and at the full size:
// streaming means it does not follow store size.
// Emulators run in a child process so their memory is not counted.
//
//   node --expose-gc -r tsx/cjs bench/snapshot.ts [--entries 100000] [--value-bytes 1000] [--rounds 5]
//     [--targets local,cloudone-store,cloudtwo-store,cloudthree-store]   (default: all four)

import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Storage as GcsStorage } from '@google-cloud/storage';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SystemContext } from '../src/engine/route-family';
import { systemClock } from '../src/engine/clock';
import { silentLogger } from '../src/engine/log';
import { AesSeal } from '../src/engine/seal/aes-seal';
import { runAttempt, planAttempt } from '../src/engine/snapshot/runner';
import { SqliteStorage } from '../src/engine/storage/sqlite';
import { JsonStore } from '../src/engine/storage/json-store';
import { validateSnapshotConfigWrite } from '../src/schema/snapshot-validate';
import { startAzurite, startGcs, startS3 } from '../test/support/object-stores';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? def : Number(process.argv[i + 1]);
};

type Fields = Record<string, Record<string, string | boolean>>;

/** Child mode: run the three emulators, print their config fields, exit on SIGTERM. */
async function serveEmulators(): Promise<void> {
  const [s3, gcs, azure] = await Promise.all([startS3(), startGcs(), startAzurite()]);
  process.stdout.write(JSON.stringify({ 'cloudone-store': s3.fields, 'cloudtwo-store': gcs.fields, 'cloudthree-store': azure.fields }) + '\n');
  process.on('SIGTERM', () => {
    void Promise.all([s3.close(), gcs.close(), azure.close()]).then(() => process.exit(0));
  });
}

async function startEmulatorProcess(): Promise<{ fields: Fields; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['-r', 'tsx/cjs', __filename, '--serve-emulators'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const fields = await new Promise<Fields>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)) as Fields);
    });
    child.once('exit', (code) => reject(new Error(`emulator process exited with ${code}`)));
  });
  return {
    fields,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

interface Measured {
  ms: number;
  /** Peak RSS above the RSS when the step began. */
  peakRssMb: number;
  /** Peak RSS of the whole process during the step. */
  peakAbsMb: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

/** Wall time (of fn, or what fn reports) and peak RSS, sampled every 5 ms. */
async function measure(fn: () => Promise<number | void>): Promise<Measured> {
  gc?.();
  const base = process.memoryUsage.rss();
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  const t = performance.now();
  const reported = await fn();
  const ms = typeof reported === 'number' ? reported : performance.now() - t;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  return { ms, peakRssMb: (peak - base) / 1024 ** 2, peakAbsMb: peak / 1024 ** 2 };
}

async function fill(storage: SqliteStorage, from: number, to: number, valueBytes: number): Promise<void> {
  for (let i = from; i < to; i += 1000) {
    const ops = [];
    for (let j = i; j < Math.min(to, i + 1000); j++) ops.push({ type: 'put' as const, key: `bench/${String(j).padStart(8, '0')}`, value: randomBytes(valueBytes) });
    await storage.batch(ops);
  }
}

/** Deletes the entries [to, from) again: the timing rounds of the smaller store run last. */
async function shrink(storage: SqliteStorage, to: number, from: number): Promise<void> {
  for (let i = to; i < from; i += 1000) {
    const ops = [];
    for (let j = i; j < Math.min(from, i + 1000); j++) ops.push({ type: 'delete' as const, key: `bench/${String(j).padStart(8, '0')}` });
    await storage.batch(ops);
  }
}

async function rawUpload(type: string, f: Record<string, string | boolean>, dir: string, buf: Buffer): Promise<void> {
  const key = `raw/raw-${Date.now()}.bin`;
  if (type === 'local') {
    const fh = await open(join(dir, 'raw.bin'), 'w');
    await fh.writeFile(buf);
    await fh.sync();
    await fh.close();
  } else if (type === 'cloudone-store') {
    const c = new S3Client({
      region: String(f.cloudone_region),
      endpoint: `http://${f.cloudone_endpoint}`,
      forcePathStyle: true,
      credentials: { accessKeyId: String(f.cloudone_access_key_id), secretAccessKey: String(f.cloudone_secret_access_key) },
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    await c.send(new PutObjectCommand({ Bucket: String(f.cloudone_bucket), Key: key, Body: buf }));
    c.destroy();
  } else if (type === 'cloudtwo-store') {
    const s = new GcsStorage({ apiEndpoint: String(f.cloudtwo_endpoint) });
    await s.bucket(String(f.cloudtwo_bucket)).file(key).save(buf, { resumable: true, validation: 'md5' });
  } else {
    const svc = new BlobServiceClient(String(f.cloudthree_endpoint), new StorageSharedKeyCredential(String(f.cloudthree_account_name), String(f.cloudthree_account_key)));
    await svc.getContainerClient(String(f.cloudthree_container_name)).getBlockBlobClient(key).uploadData(buf);
  }
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

const STORES: Record<string, string> = {
  local: 'local directory',
  'cloudone-store': 'S3 API, s3rver',
  'cloudtwo-store': 'GCS JSON API, test/support/gcs-emulator',
  'cloudthree-store': 'Azure Blob, azurite',
};

/** The timed runs of one side (snapshot or raw upload), ms each. */
interface Runs {
  ms: number[];
  /** CPU time of this process (all its threads: the SQLite reader too). */
  cpu: number[];
  /** CPU time of the main thread alone (10 ms resolution). */
  main: number[];
}

interface Row {
  /** First pass: the snapshot's time and memory before any raw buffer upload ran. */
  rss: Measured;
  size: number;
  snap: Runs;
  raw: Runs;
}

/** CPU time of the main thread alone (the event loop), ms: /proc's utime + stime of its task. */
const mainCpuMs = (): number => {
  try {
    const f = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return NaN;
  }
};

const cpuMs = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};

async function main(): Promise<void> {
  const entries = arg('entries', 100_000);
  const valueBytes = arg('value-bytes', 1000);
  const rounds = Math.max(1, arg('rounds', 5));
  const only = process.argv.includes('--targets') ? process.argv[process.argv.indexOf('--targets') + 1].split(',') : Object.keys(STORES);
  const unknown = only.filter((t) => !(t in STORES));
  if (unknown.length > 0) throw new Error(`--targets: unknown target ${unknown.join(', ')} (known: ${Object.keys(STORES).join(', ')})`);
  const work = mkdtempSync(join(tmpdir(), 'kw-bench-snap-'));
  const emulators = await startEmulatorProcess();
  const storage = new SqliteStorage(join(work, 'store.db'));
  const sys: SystemContext = {
    rawStorage: storage,
    store: new JsonStore(storage),
    seal: new AesSeal(randomBytes(32)),
    edition: 'enterprise',
    clock: systemClock,
    log: silentLogger,
    dataDir: work,
    reload: async () => undefined,
  };
  const targets = (
    [
      ['local', { path_prefix: join(work, 'local'), local_max_space: 1024 ** 4 }],
      ['cloudone-store', { path_prefix: 'bench/', ...emulators.fields['cloudone-store'] }],
      ['cloudtwo-store', { path_prefix: 'bench/', ...emulators.fields['cloudtwo-store'] }],
      ['cloudthree-store', { path_prefix: 'bench/', ...emulators.fields['cloudthree-store'] }],
    ] as [string, Record<string, unknown>][]
  ).filter(([t]) => only.includes(t));
  /** One attempt, as the scheduler runs it; returns its own wall time (the size lookup after it is not timed). */
  const snapshot = async (type: string, extra: Record<string, unknown>, sized?: (bytes: number) => void): Promise<number> => {
    const config = validateSnapshotConfigWrite({ storage_type: type, interval: 3600, retain: 2, ...extra }).config;
    const now = Date.now();
    const t0 = performance.now();
    const plan = planAttempt(config, now);
    await runAttempt(sys, config, plan, now, { signal: new AbortController().signal, stillWanted: () => true });
    const ms = performance.now() - t0;
    if (sized) {
      const t = planAttempt(config, now).target;
      sized((await t.list()).find((o) => o.name === plan.name)?.size ?? 0);
      await t.close();
    }
    return ms;
  };
  const results: Record<number, Record<string, Row>> = {};
  const sizes = [Math.floor(entries / 4), entries];
  /** The same time budget per size: a smaller store gets proportionally more rounds. */
  const roundsAt = (size: number) => Math.round((rounds * entries) / size);
  try {
    let filled = 0;
    for (const size of sizes) {
      await fill(storage, filled, size, valueBytes);
      filled = size;
      results[size] = {};
      // Every RSS measurement runs before any raw upload: RSS does not shrink after a big buffer
      // is freed, so a raw upload first would hide the snapshots' own peak.
      for (const [type, extra] of targets) {
        let archiveSize = 0;
        const rss = await measure(() => snapshot(type, extra, (b) => (archiveSize = b)));
        results[size][type] = { rss, size: archiveSize, snap: { ms: [], cpu: [], main: [] }, raw: { ms: [], cpu: [], main: [] } };
      }
    }
    for (const size of [...sizes].reverse()) {
      await shrink(storage, size, filled);
      filled = size;
      for (const [type, extra] of targets) {
        const row = results[size][type];
        // Round -1 warms up, untimed: its retention rotates out the snapshots the other size left
        // (deleting those is not this size's work) and the store's and emulator's caches settle.
        for (let r = -1; r < roundsAt(size); r++) {
          /** Runs `fn` (which may report its own wall time) and records it in `into` unless warming up. */
          const run = async (into: Runs, fn: () => Promise<number | void>) => {
            const cpu = process.cpuUsage();
            const m = mainCpuMs();
            const t = performance.now();
            const reported = await fn();
            if (r < 0) return;
            into.ms.push(typeof reported === 'number' ? reported : performance.now() - t);
            into.cpu.push(cpuMs(cpu));
            into.main.push(mainCpuMs() - m);
          };
          // Alternating order, so a drift in the machine's load does not favour one side.
          const raw = async () => {
            const buf = randomBytes(row.size);
            await run(row.raw, () => rawUpload(type, emulators.fields[type] ?? {}, work, buf));
          };
          const snap = () => run(row.snap, () => snapshot(type, extra));
          if (r % 2 === 0) {
            await raw();
            await snap();
          } else {
            await snap();
            await raw();
          }
        }
      }
    }
  } finally {
    await storage.close();
    await emulators.stop();
    rmSync(work, { recursive: true, force: true });
  }

  const mb = (n: number) => (n / 1024 ** 2).toFixed(1);
  console.log(
    `snapshot bench: ${entries} entries of ${valueBytes} B, ${rounds} interleaved timing rounds at ${entries} entries, ${roundsAt(sizes[0])} at ${sizes[0]} (gc ${gc ? 'on' : 'off: run with --expose-gc for steadier RSS'}; load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} on ${cpus().length} CPUs)`,
  );
  console.log(
    `targets: ${Object.entries(STORES)
      .map(([t, d]) => `${t} (${d})`)
      .join(', ')}`,
  );
  for (const size of sizes) {
    const rows = results[size];
    console.log(`\nstore ${size} entries, archive ${mb(Object.values(rows)[0].size)} MB (times: median of ${roundsAt(size)}, all in ms)`);
    console.log('target            snapshot ms  raw SDK ms  time ratio | snapshot runs            | raw SDK runs             | CPU ms snapshot / raw (medians) | main thread');
    for (const [type, r] of Object.entries(rows)) {
      const runs = (xs: number[]) =>
        xs
          .map((x) => x.toFixed(0))
          .join(' ')
          .padEnd(24);
      const s = median(r.snap.ms);
      const w = median(r.raw.ms);
      console.log(
        `${type.padEnd(16)}  ${s.toFixed(0).padStart(11)}  ${w.toFixed(0).padStart(10)}  ${(s / w).toFixed(2).padStart(10)} | ${runs(r.snap.ms)} | ${runs(r.raw.ms)} | ${median(r.snap.cpu).toFixed(0)} / ${median(r.raw.cpu).toFixed(0)} | ${median(r.snap.main).toFixed(0)} / ${median(r.raw.main).toFixed(0)}`,
      );
    }
  }
  const [small, large] = sizes;
  console.log(`\npeak RSS growth of a snapshot, ${small} -> ${large} entries (first pass, before any raw upload; flat = streaming):`);
  for (const type of Object.keys(results[large])) {
    const a = results[small][type].rss;
    const b = results[large][type].rss;
    console.log(`  ${type.padEnd(16)} +${a.peakRssMb.toFixed(1)} -> +${b.peakRssMb.toFixed(1)} MB (process peak ${a.peakAbsMb.toFixed(0)} -> ${b.peakAbsMb.toFixed(0)} MB)`);
  }
  console.log('\nsummary (ratios per size; RSS growth of the first pass at each size):');
  for (const [type] of targets) {
    const ratios = sizes.map((n) => (median(results[n][type].snap.ms) / median(results[n][type].raw.ms)).toFixed(2));
    console.log(
      `  ${type.padEnd(16)} ratio ${ratios.join(' / ')} at ${sizes.join(' / ')} entries; RSS +${results[small][type].rss.peakRssMb.toFixed(1)} / +${results[large][type].rss.peakRssMb.toFixed(1)} MB`,
    );
  }
  // Issue 31's acceptance: each cloud target <= 1.3x its raw SDK upload at the full size, and the
  // process's first snapshot (the first pass's first, which loads the reader thread and SQLite)
  // grows RSS by less than 64 MiB.
  const pass = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  console.log(
    `\ntargets (${entries} entries; load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} at the end):`,
  );
  for (const [type] of targets.filter(([t]) => t !== 'local')) {
    const ratio = median(results[large][type].snap.ms) / median(results[large][type].raw.ms);
    console.log(`  ${type.padEnd(16)} snapshot / raw SDK upload ${ratio.toFixed(2)}x <= 1.3x ${pass(ratio <= 1.3)}`);
  }
  const first = results[small][targets[0][0]].rss.peakRssMb;
  console.log(`  first snapshot of the process (${targets[0][0]}, ${small} entries): RSS +${first.toFixed(1)} MiB < 64 MiB ${pass(first < 64)}`);
}

if (process.argv.includes('--serve-emulators')) void serveEmulators();
else
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
