// The per-config scheduler on an injected clock, through the real engine: first run one interval
// after the write, retention, local_max_space failures in status, update restarts, delete stops,
// and schedules resuming after an engine restart.

import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SystemFamilyFactory } from '../../../src/engine/route-family';
import { ManualClock } from '../../../src/engine/clock';
import { createSnapshotFamily, snapshotFamily, type SnapshotFamily } from '../../../src/engine/snapshot/family';
import { systemFamilyFactories } from '../../../src/engine/sys/families';
import { api, startTestEngine } from '../../support/engine';

const T0 = Date.UTC(2026, 0, 1);
const CONFIG = 'sys/storage/raft/snapshot-auto/config';
const STATUS = 'sys/storage/raft/snapshot-auto/status';

interface Harness {
  engine: Awaited<ReturnType<typeof startTestEngine>>;
  clock: ManualClock;
  family: () => SnapshotFamily;
  /** Advances the clock and waits for every attempt it started. */
  advance(seconds: number): Promise<void>;
}

async function start(dataDir: string, at = T0): Promise<Harness> {
  const clock = new ManualClock(at);
  let family: SnapshotFamily | undefined;
  const capture: SystemFamilyFactory = (sys) => (family = createSnapshotFamily(sys));
  const engine = await startTestEngine({
    clock,
    edition: 'enterprise',
    dataDir,
    systemFamilies: [...systemFamilyFactories.filter((f) => f !== snapshotFamily), capture],
  });
  return {
    engine,
    clock,
    family: () => family!,
    advance: async (seconds) => {
      await clock.advance(seconds * 1000);
      await family!.scheduler.settled();
    },
  };
}

let root: string;
let h: Harness;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'kw-sched-'));
  h = await start(join(root, 'data'));
});
afterEach(async () => {
  await h.engine.close();
  await rm(root, { recursive: true, force: true });
});

const snaps = async (dir: string) => (await readdir(dir).catch(() => [] as string[])).filter((n) => /^vault-snapshot-\d+\.snap$/.test(n)).sort();
const localBody = (dir: string, extra: Record<string, unknown> = {}) => ({ storage_type: 'local', interval: 60, path_prefix: dir, local_max_space: 50_000_000, ...extra });

describe('snapshot scheduler', () => {
  it('runs one interval after the write, then one interval after each run ends', async () => {
    const dir = join(root, 'out');
    expect((await api(h.engine, 'POST', `${CONFIG}/a`, { body: localBody(dir) })).status).toBe(204);
    expect((await api(h.engine, 'GET', `${STATUS}/a`)).body.data).toEqual({ consecutive_errors: 0, next_snapshot_start: '2026-01-01T00:01:00Z' });
    await h.advance(59);
    expect(await snaps(dir)).toEqual([]);
    await h.advance(1);
    expect(await snaps(dir)).toEqual([`vault-snapshot-${BigInt(T0 + 60_000) * 1_000_000n}.snap`]);
    const status = (await api(h.engine, 'GET', `${STATUS}/a`)).body.data;
    expect(status).toEqual({
      consecutive_errors: 0,
      last_snapshot_start: '2026-01-01T00:01:00Z',
      last_snapshot_end: '2026-01-01T00:01:00Z',
      last_snapshot_error: '',
      last_snapshot_url: `file://${dir}/vault-snapshot-${BigInt(T0 + 60_000) * 1_000_000n}.snap`,
      next_snapshot_start: '2026-01-01T00:02:00Z',
      snapshot_start: '2026-01-01T00:01:00Z',
      snapshot_url: `file://${dir}/vault-snapshot-${BigInt(T0 + 60_000) * 1_000_000n}.snap`,
    });
    await h.advance(60);
    expect((await snaps(dir)).length).toBe(1); // retain defaults to 1
  });

  it('retain=2 after 5 runs leaves exactly the 2 newest, and unrelated files alone', async () => {
    const dir = join(root, 'out');
    await api(h.engine, 'POST', `${CONFIG}/a`, { body: localBody(dir, { retain: 2 }) });
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'notes.txt'), 'keep me');
    await writeFile(join(dir, 'vault-snapshot-b-1.snap'), 'another prefix');
    for (let i = 0; i < 5; i++) await h.advance(60);
    const ns = (s: number) => `vault-snapshot-${BigInt(T0 + s * 1000) * 1_000_000n}.snap`;
    expect(await snaps(dir)).toEqual([ns(240), ns(300)]);
    expect((await readdir(dir)).sort()).toEqual(['notes.txt', 'vault-snapshot-b-1.snap', ns(240), ns(300)].sort());
  });

  it('records a local_max_space shortfall in status and deletes nothing', async () => {
    const dir = join(root, 'out');
    const budget = 1_000_000;
    await api(h.engine, 'POST', `${CONFIG}/a`, { body: localBody(dir, { local_max_space: budget }) });
    await h.advance(60);
    const first = await snaps(dir);
    expect(first.length).toBe(1);
    // Fill the budget with another file that has the prefix: every such file counts.
    const used = (await stat(join(dir, first[0]))).size;
    await writeFile(join(dir, 'vault-snapshot-manual-copy'), Buffer.alloc(budget - used - 100));
    await h.advance(60);
    let s = (await api(h.engine, 'GET', `${STATUS}/a`)).body.data;
    expect(s.last_snapshot_error).toMatch(new RegExp(`^snapshot of \\d+ bytes would exceed local_max_space \\(${budget} bytes, ${budget - 100} in use\\)$`));
    expect(s.last_snapshot_url).toBe('');
    expect(s.consecutive_errors).toBe(1);
    expect(s.next_snapshot_start).toBe('2026-01-01T00:03:00Z');
    await h.advance(60);
    s = (await api(h.engine, 'GET', `${STATUS}/a`)).body.data;
    expect(s.consecutive_errors).toBe(2);
    expect(await snaps(dir)).toEqual(first);
    expect((await readdir(dir)).filter((n) => n.endsWith('.partial'))).toEqual([]);
  });

  it('an update restarts the schedule from the write', async () => {
    const dir = join(root, 'out');
    await api(h.engine, 'POST', `${CONFIG}/a`, { body: localBody(dir) });
    await h.advance(30);
    await api(h.engine, 'POST', `${CONFIG}/a`, { body: { interval: '100s' } });
    expect((await api(h.engine, 'GET', `${STATUS}/a`)).body.data.next_snapshot_start).toBe('2026-01-01T00:02:10Z');
    await h.advance(99);
    expect(await snaps(dir)).toEqual([]);
    await h.advance(1);
    expect((await snaps(dir)).length).toBe(1);
  });

  it('a delete stops the schedule', async () => {
    const dir = join(root, 'out');
    await api(h.engine, 'POST', `${CONFIG}/a`, { body: localBody(dir) });
    await h.advance(30);
    expect((await api(h.engine, 'DELETE', `${CONFIG}/a`)).status).toBe(204);
    await h.advance(600);
    expect(await snaps(dir)).toEqual([]);
    expect(h.clock.pending()).toBe(0);
  });

  it('schedules resume after an engine restart', async () => {
    const dir = join(root, 'out');
    await api(h.engine, 'POST', `${CONFIG}/a`, { body: localBody(dir) });
    await h.advance(60);
    expect((await snaps(dir)).length).toBe(1);
    await h.engine.close();
    h = await start(join(root, 'data'), T0 + 90_000);
    expect((await api(h.engine, 'GET', `${STATUS}/a`)).body.data.next_snapshot_start).toBe('2026-01-01T00:02:00Z');
    await h.advance(29);
    expect((await snaps(dir)).length).toBe(1);
    await h.advance(1);
    expect(await snaps(dir)).toEqual([`vault-snapshot-${BigInt(T0 + 120_000) * 1_000_000n}.snap`]);
    // Overdue after a long outage: runs as soon as the engine is back.
    await h.engine.close();
    h = await start(join(root, 'data'), T0 + 3_600_000);
    await h.advance(0);
    expect(await snaps(dir)).toEqual([`vault-snapshot-${BigInt(T0 + 3_600_000) * 1_000_000n}.snap`]);
  });
});
