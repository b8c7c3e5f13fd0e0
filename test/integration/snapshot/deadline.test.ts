// A store that accepts the upload and then stalls (the GCS emulator's upload gate held shut), on
// the injected clock: the attempt's deadline aborts it and the status records the error, another
// config keeps its schedule, a restore answers, and stopping the engine does not wait for the store.

import { readdirSync, watch } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SystemFamilyFactory } from '../../../src/engine/route-family';
import { ManualClock } from '../../../src/engine/clock';
import { DEFAULT_DEADLINE } from '../../../src/engine/snapshot/deadline';
import { createSnapshotFamily, snapshotFamily, type SnapshotFamily } from '../../../src/engine/snapshot/family';
import { systemFamilyFactories } from '../../../src/engine/sys/families';
import { api, startTestEngine } from '../../support/engine';
import { isCompleteArchive, startGcs, type RunningStore } from '../../support/object-stores';
import type { GcsEmulator } from '../../support/gcs-emulator/server';
import { until } from '../../support/poll';

const T0 = Date.UTC(2026, 0, 1);
const CONFIG = 'sys/storage/raft/snapshot-auto/config';
const STATUS = 'sys/storage/raft/snapshot-auto/status';
let gcs: RunningStore & { emulator: GcsEmulator };
let dir: string;

beforeAll(async () => {
  gcs = await startGcs();
  dir = await mkdtemp(join(tmpdir(), 'kw-deadline-'));
});
afterAll(async () => {
  await gcs?.close();
  await rm(dir, { recursive: true, force: true });
});

it('aborts a stalled upload at its deadline, keeps other schedules, and never holds restore or stop', async () => {
  const clock = new ManualClock(T0);
  let family: SnapshotFamily | undefined;
  const capture: SystemFamilyFactory = (sys) => (family = createSnapshotFamily(sys));
  const engine = await startTestEngine({
    clock,
    edition: 'enterprise',
    dataDir: join(dir, 'engine'),
    systemFamilies: [...systemFamilyFactories.filter((f) => f !== snapshotFamily), capture],
  });
  let release!: () => void;
  try {
    const archive = Buffer.from(await (await fetch(`${engine.url}/v1/sys/storage/raft/snapshot`, { headers: { 'x-vault-token': engine.rootToken } })).arrayBuffer());
    await api(engine, 'POST', `${CONFIG}/cloud`, { body: { storage_type: 'cloudtwo-store', interval: 60, path_prefix: 'stall/', ...gcs.fields } });
    await api(engine, 'POST', `${CONFIG}/local`, { body: { storage_type: 'local', interval: 60, path_prefix: join(dir, 'local'), local_max_space: 1e9 } });
    gcs.emulator.store.uploadGate = new Promise<void>((r) => (release = r));

    await clock.advance(60_000); // both attempts start; the cloud one stalls inside its upload
    await until(
      "gcs.emulator.store.activeUploads === 1 && family!.scheduler.status('local')?.last_snapshot_end !== undefined",
      () => gcs.emulator.store.activeUploads === 1 && family!.scheduler.status('local')?.last_snapshot_end !== undefined,
      Boolean,
      { intervalMs: 0 },
    );
    let cloud = (await api(engine, 'GET', `${STATUS}/cloud`)).body.data;
    expect(cloud.consecutive_errors).toBe(0);
    const localFirst = (await api(engine, 'GET', `${STATUS}/local`)).body.data;
    expect(localFirst.last_snapshot_error).toBe('');

    // The deadline (the floor: 60 s for a 60 s interval, plus time for a few KB) passes.
    await clock.advance(DEFAULT_DEADLINE.floorMs + 1000);
    await family!.scheduler.settled();
    cloud = (await api(engine, 'GET', `${STATUS}/cloud`)).body.data;
    expect(cloud.consecutive_errors).toBe(1);
    expect(cloud.last_snapshot_error).toMatch(/^upload to cloudtwo-store failed: AttemptDeadlineError: the attempt did not finish within its deadline of 60 s/);
    expect(cloud.last_snapshot_url).toBe('');
    // The other config ran again meanwhile, and the stalled one is scheduled again.
    const local = (await api(engine, 'GET', `${STATUS}/local`)).body.data;
    expect(local.last_snapshot_end > localFirst.last_snapshot_end).toBe(true);
    expect(local.consecutive_errors).toBe(0);
    expect(cloud.next_snapshot_start > cloud.last_snapshot_end).toBe(true);

    // Next cloud attempt stalls too; a restore aborts it instead of waiting for the store.
    await clock.advance(60_000);
    await until('gcs.emulator.store.activeUploads === 2', () => gcs.emulator.store.activeUploads === 2, Boolean, { intervalMs: 0 });
    const restored = await api(engine, 'POST', 'sys/storage/raft/snapshot', { rawBody: archive });
    expect([restored.status, restored.text]).toEqual([204, '']);
    // The archive predates both configs.
    expect((await api(engine, 'GET', `${CONFIG}/cloud`)).status).toBe(404);

    await api(engine, 'POST', `${CONFIG}/cloud`, { body: { storage_type: 'cloudtwo-store', interval: 60, path_prefix: 'stall/', ...gcs.fields } });
    await clock.advance(60_000);
    await until('gcs.emulator.store.activeUploads === 3', () => gcs.emulator.store.activeUploads === 3, Boolean, { intervalMs: 0 });
  } finally {
    // Shutdown aborts the stalled attempt: close() returns while the store is still stalled.
    await engine.close();
    // Once close() returns nothing touches the data directory (an attempt aborted while opening
    // its archive used to start a reader afterwards, which opened the database again).
    const touched: string[] = [];
    const watcher = watch(join(dir, 'engine'), (_event, name) => touched.push(String(name)));
    await new Promise((r) => setTimeout(r, 500));
    watcher.close();
    expect(touched).toEqual([]);
    expect(readdirSync(join(dir, 'engine')).filter((n) => n.startsWith('keyward.db-'))).toEqual([]);
    expect(gcs.emulator.store.activeUploads).toBeGreaterThan(0);
    gcs.emulator.store.uploadGate = undefined;
    release?.();
  }
  // An aborted upload whose bytes had all reached the store may still complete there (the
  // store commits what it received); what lies under a final name is always a whole archive.
  await until('gcs.emulator.store.activeUploads === 0', () => gcs.emulator.store.activeUploads === 0, Boolean, { intervalMs: 0 });
  for (const o of gcs.emulator.store.list('snapshots', 'stall/', '/').items) {
    const parts: Buffer[] = [];
    for await (const c of gcs.emulator.store.read(o) as AsyncIterable<Buffer>) parts.push(c);
    expect([o.name, await isCompleteArchive(Buffer.concat(parts))]).toEqual([o.name, true]);
  }
});
