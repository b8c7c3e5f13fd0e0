// The scheduler's start and failure paths on a memory store and an injected clock: a crash's temp
// files are gone before any timer is armed, and a run that throws (status cannot be persisted) is
// caught, counted in the status and logged instead of escaping as an unhandled rejection.

import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SystemContext } from '../../../../src/engine/route-family';
import { ManualClock, type Clock } from '../../../../src/engine/clock';
import { createLogger } from '../../../../src/engine/log';
import { SnapshotRecords } from '../../../../src/engine/snapshot/records';
import { SnapshotScheduler } from '../../../../src/engine/snapshot/scheduler';
import { MemoryStorage } from '../../../../src/engine/storage/memory';
import { validateSnapshotConfigWrite } from '../../../../src/schema/snapshot-validate';
import { systemContext } from '../../../support/system-context';

const T0 = Date.UTC(2026, 0, 1);

/** Memory storage whose status writes fail while `failStatus` is set. */
class FlakyStorage extends MemoryStorage {
  failStatus = false;
  override async put(key: string, value: Buffer) {
    if (this.failStatus && key.includes('snapshot-auto/status/')) throw new Error('disk I/O error');
    return super.put(key, value);
  }
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kw-sched-guard-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function context(storage: MemoryStorage, clock: Clock, logs: string[] = []): SystemContext {
  return systemContext({ storage, clock, dataDir: join(dir, 'data'), log: createLogger('warn', (l) => logs.push(l)) });
}

it('removes leftover temp files before arming any timer (an overdue attempt starts after the cleanup)', async () => {
  const out = join(dir, 'out');
  const leftover = join(out, '.vault-snapshot-1767225600000000000.snap.partial');
  const storage = new MemoryStorage();
  const manual = new ManualClock(T0);
  const seenAtArm: boolean[] = [];
  const probing: Clock = {
    now: () => manual.now(),
    setTimer: (ms, fn) => {
      seenAtArm.push(existsSync(leftover));
      return manual.setTimer(ms, fn);
    },
  };
  const sys = context(storage, probing);
  const records = new SnapshotRecords(sys.store);
  const { config } = validateSnapshotConfigWrite({ storage_type: 'local', interval: 60, path_prefix: out, local_max_space: 1e9 });
  await records.putConfig('overdue', { config, written_at: T0 - 3_600_000 });
  await (await import('node:fs/promises')).mkdir(out, { recursive: true });
  await writeFile(leftover, 'crashed mid-write');
  const scheduler = new SnapshotScheduler(sys, records);
  await scheduler.start();
  expect(seenAtArm).toEqual([false]);
  await scheduler.stop();
});

it('catches a run that throws, records it in the status and logs it', async () => {
  const storage = new FlakyStorage();
  const clock = new ManualClock(T0);
  const logs: string[] = [];
  const sys = context(storage, clock, logs);
  const records = new SnapshotRecords(sys.store);
  const scheduler = new SnapshotScheduler(sys, records);
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  try {
    await scheduler.start();
    const { config } = validateSnapshotConfigWrite({ storage_type: 'local', interval: 60, path_prefix: join(dir, 'out'), local_max_space: 1e9 });
    await records.putConfig('flaky', { config, written_at: T0 });
    await scheduler.configWritten('flaky', config);
    storage.failStatus = true;
    await clock.advance(60_000);
    await scheduler.settled();
    // Let any escaped rejection reach the process handler before checking.
    await new Promise<void>((r) => setImmediate(r));
    expect(unhandled).toEqual([]);
    const status = scheduler.status('flaky')!;
    expect(status.consecutive_errors).toBe(1);
    expect(status.last_snapshot_error).toBe('disk I/O error');
    expect(status.next_snapshot_start).toBe(T0 + 120_000);
    expect(logs.some((l) => l.includes('"msg":"snapshot status could not be saved"'))).toBe(true);
    // The schedule continues: once the store works again the next run succeeds.
    storage.failStatus = false;
    await clock.advance(60_000);
    await scheduler.settled();
    expect(scheduler.status('flaky')!.consecutive_errors).toBe(0);
    await scheduler.stop();
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});
