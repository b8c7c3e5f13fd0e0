// Scheduled snapshots to the three object stores through their emulators (s3rver, azurite, our
// GCS emulator), configured through the API: objects land under path_prefix with final names only,
// retention keeps the newest, status carries the object URL, and a stored snapshot restores.

import type { SystemFamilyFactory } from '../../../src/engine/route-family';
import { ManualClock } from '../../../src/engine/clock';
import { createSnapshotFamily, snapshotFamily, type SnapshotFamily } from '../../../src/engine/snapshot/family';
import { createTarget } from '../../../src/engine/snapshot/targets/create-target';
import { systemFamilyFactories } from '../../../src/engine/sys/families';
import { validateSnapshotConfigWrite } from '../../../src/schema/snapshot-validate';
import { api, startTestEngine } from '../../support/engine';
import type { GcsEmulator } from '../../support/gcs-emulator/server';
import { startAzurite, startGcs, startS3, type RunningStore } from '../../support/object-stores';
import { until } from '../../support/poll';
import { readAll } from '../../support/read-all';

const T0 = Date.UTC(2026, 0, 1);
let stores: Record<string, RunningStore> = {};
let gcsEmulator: GcsEmulator;
let engine: Awaited<ReturnType<typeof startTestEngine>>;
let family: SnapshotFamily;
const clock = new ManualClock(T0);

beforeAll(async () => {
  const [s3, gcs, azure] = await Promise.all([startS3(), startGcs(), startAzurite()]);
  stores = { 'cloudone-store': s3, 'cloudtwo-store': gcs, 'cloudthree-store': azure };
  gcsEmulator = gcs.emulator;
  const capture: SystemFamilyFactory = (sys) => (family = createSnapshotFamily(sys));
  engine = await startTestEngine({ clock, edition: 'enterprise', systemFamilies: [...systemFamilyFactories.filter((f) => f !== snapshotFamily), capture] });
});
afterAll(async () => {
  await engine?.close();
  await Promise.all(Object.values(stores).map((s) => s.close()));
});

describe.each(['cloudone-store', 'cloudtwo-store', 'cloudthree-store'])('scheduled snapshots to %s', (type) => {
  it('writes, rotates, reports the URL, and the newest snapshot restores', async () => {
    const name = `to-${type}`;
    const body = { storage_type: type, interval: 60, retain: 2, path_prefix: `cluster/${type}/`, ...stores[type].fields };
    const w = await api(engine, 'POST', `sys/storage/raft/snapshot-auto/config/${name}`, { body });
    expect([w.status, w.text]).toEqual([204, '']);
    for (let i = 0; i < 3; i++) {
      await clock.advance(60_000);
      await family.scheduler.settled();
    }
    const status = (await api(engine, 'GET', `sys/storage/raft/snapshot-auto/status/${name}`)).body.data;
    expect(status.last_snapshot_error).toBe('');
    expect(status.consecutive_errors).toBe(0);
    expect(status.last_snapshot_url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/.*cluster/${type}/vault-snapshot-\\d{19}\\.snap$`));

    const target = createTarget(validateSnapshotConfigWrite(body).config);
    const names = (await target.list()).map((o) => o.name);
    expect(names.length).toBe(2);
    expect(names.every((n) => /^vault-snapshot-\d{19}\.snap$/.test(n))).toBe(true);
    const newest = names.sort().at(-1)!;
    expect(status.last_snapshot_url.endsWith(newest)).toBe(true);

    const bytes = await readAll(await target.get(newest));
    await target.close();
    const r = await api(engine, 'POST', 'sys/storage/raft/snapshot', { rawBody: bytes });
    expect([r.status, r.text]).toEqual([204, '']);
    // The restored store still holds this config (it was written before the snapshot).
    expect((await api(engine, 'GET', `sys/storage/raft/snapshot-auto/config/${name}`)).body.data.retain).toBe(2);
    await api(engine, 'DELETE', `sys/storage/raft/snapshot-auto/config/${name}`);
  });

  it('records a store failure (bad bucket) in status without writing anything', async () => {
    const name = `broken-${type}`;
    const fields = { ...stores[type].fields };
    for (const k of ['cloudone_bucket', 'cloudtwo_bucket', 'cloudthree_container_name']) if (k in fields) fields[k] = 'no-such-bucket';
    await api(engine, 'POST', `sys/storage/raft/snapshot-auto/config/${name}`, { body: { storage_type: type, interval: 60, path_prefix: 'x/', ...fields } });
    await clock.advance(60_000);
    await family.scheduler.settled();
    const status = (await api(engine, 'GET', `sys/storage/raft/snapshot-auto/status/${name}`)).body.data;
    expect(status.last_snapshot_error).toMatch(new RegExp(`^upload to ${type} failed: .+`));
    expect(status.consecutive_errors).toBe(1);
    expect(status.last_snapshot_url).toBe('');
    await api(engine, 'DELETE', `sys/storage/raft/snapshot-auto/config/${name}`);
  });
});

describe('one config never runs two attempts at once', () => {
  it('holds a due attempt until the running one ends', async () => {
    const name = 'held';
    const body = { storage_type: 'cloudtwo-store', interval: 60, retain: 5, path_prefix: 'held/', ...stores['cloudtwo-store'].fields };
    await api(engine, 'POST', `sys/storage/raft/snapshot-auto/config/${name}`, { body });
    let release!: () => void;
    gcsEmulator.store.uploadGate = new Promise<void>((r) => (release = r));
    gcsEmulator.store.maxActiveUploads = 0;
    await clock.advance(60_000); // attempt 1 starts and blocks inside the upload
    await until('gcsEmulator.store.activeUploads === 1', () => gcsEmulator.store.activeUploads === 1, Boolean, { intervalMs: 0 });
    // An update restarts the schedule; its attempt falls due while attempt 1 is still uploading.
    await api(engine, 'POST', `sys/storage/raft/snapshot-auto/config/${name}`, { body: { interval: 30 } });
    await clock.advance(30_000);
    expect(gcsEmulator.store.activeUploads).toBe(1);
    gcsEmulator.store.uploadGate = undefined;
    release();
    await family.scheduler.settled();
    expect(gcsEmulator.store.maxActiveUploads).toBe(1);
    const target = createTarget(validateSnapshotConfigWrite(body).config);
    expect((await target.list()).length).toBe(2); // both attempts ran, one after the other
    await target.close();
    const status = (await api(engine, 'GET', `sys/storage/raft/snapshot-auto/status/${name}`)).body.data;
    expect(status.consecutive_errors).toBe(0);
    await api(engine, 'DELETE', `sys/storage/raft/snapshot-auto/config/${name}`);
  });
});
