// Snapshot throughput and memory: a store of --entries entries (default 100,000 of ~1 KB, about
// 100 MB) archived and published to a local directory and to each object-store emulator, printed
// beside the raw SDK upload of an equal-sized in-memory buffer measured in the same run. The run
// repeats at a quarter of the size: streaming means peak RSS growth does not follow store size.
// Emulators run in a child process so their memory is not counted.
//
//   npx tsx bench/snapshot.ts [--entries 100000] [--value-bytes 1000]

import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Storage as GcsStorage } from '@google-cloud/storage';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SystemContext } from '../src/engine/backend';
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

async function main(): Promise<void> {
  const entries = arg('entries', 100_000);
  const valueBytes = arg('value-bytes', 1000);
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
  const targets: [string, Record<string, unknown>][] = [
    ['local', { path_prefix: join(work, 'local'), local_max_space: 1024 ** 4 }],
    ['cloudone-store', { path_prefix: 'bench/', ...emulators.fields['cloudone-store'] }],
    ['cloudtwo-store', { path_prefix: 'bench/', ...emulators.fields['cloudtwo-store'] }],
    ['cloudthree-store', { path_prefix: 'bench/', ...emulators.fields['cloudthree-store'] }],
  ];
  const results: Record<number, Record<string, { snap: Measured; raw: Measured; size: number }>> = {};
  try {
    // Every snapshot runs before any raw upload: RSS does not shrink after a big buffer is freed,
    // so a raw upload first would hide the snapshots' own peak.
    let filled = 0;
    const sizes = [Math.floor(entries / 4), entries];
    for (const size of sizes) {
      await fill(storage, filled, size, valueBytes);
      filled = size;
      results[size] = {};
      for (const [type, extra] of targets) {
        const config = validateSnapshotConfigWrite({ storage_type: type, interval: 3600, ...extra }).config;
        let archiveSize = 0;
        const snap = await measure(async () => {
          const now = Date.now();
          const plan = planAttempt(config, now);
          await runAttempt(sys, config, plan, now, { signal: new AbortController().signal, stillWanted: () => true });
          archiveSize = (await plan.target.list()).find((o) => o.name === plan.name)?.size ?? 0;
        });
        results[size][type] = { snap, raw: { ms: NaN, peakRssMb: NaN, peakAbsMb: NaN }, size: archiveSize };
      }
    }
    for (const size of sizes) {
      for (const [type] of targets) {
        // The raw upload holds the whole archive in memory: the buffer counts toward its RSS, its
        // allocation does not count toward its time.
        results[size][type].raw = await measure(async () => {
          const buf = randomBytes(results[size][type].size);
          const t = performance.now();
          await rawUpload(type, emulators.fields[type] ?? {}, work, buf);
          return performance.now() - t;
        });
      }
    }
  } finally {
    await storage.close();
    await emulators.stop();
    rmSync(work, { recursive: true, force: true });
  }

  const mb = (n: number) => (n / 1024 ** 2).toFixed(1);
  console.log(`snapshot bench: ${entries} entries of ${valueBytes} B (gc ${gc ? 'on' : 'off: run with --expose-gc for steadier RSS'}; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} on ${cpus().length} CPUs)`);
  for (const [size, rows] of Object.entries(results)) {
    console.log(`\nstore ${size} entries, archive ${mb(Object.values(rows)[0].size)} MB`);
    console.log('target            snapshot ms  RSS +MB  peak RSS MB | raw SDK ms  RSS +MB  peak RSS MB | time ratio');
    for (const [type, r] of Object.entries(rows)) {
      const cols = (m: Measured, w: number) => `${m.ms.toFixed(0).padStart(w)}  ${m.peakRssMb.toFixed(1).padStart(7)}  ${m.peakAbsMb.toFixed(0).padStart(11)}`;
      console.log(`${type.padEnd(16)}  ${cols(r.snap, 11)} | ${cols(r.raw, 10)} | ${(r.snap.ms / r.raw.ms).toFixed(2).padStart(10)}`);
    }
  }
  const [small, large] = Object.keys(results).map(Number);
  console.log(`\npeak RSS growth, ${large} vs ${small} entries (streaming keeps it flat; the raw buffer upload holds the whole archive):`);
  for (const type of Object.keys(results[large])) {
    const a = results[small][type];
    const b = results[large][type];
    console.log(
      `  ${type.padEnd(16)} snapshot +${a.snap.peakRssMb.toFixed(1)} -> +${b.snap.peakRssMb.toFixed(1)} MB (peak ${a.snap.peakAbsMb.toFixed(0)} -> ${b.snap.peakAbsMb.toFixed(0)} MB); raw buffer +${a.raw.peakRssMb.toFixed(1)} -> +${b.raw.peakRssMb.toFixed(1)} MB`,
    );
  }
}

if (process.argv.includes('--serve-emulators')) void serveEmulators();
else
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
