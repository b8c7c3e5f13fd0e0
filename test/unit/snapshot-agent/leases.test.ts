// Slot leases over a real state directory, each agent on its own manual clock (so one can stand
// still, as a paused or partitioned process does): one holder per slot, renewal, takeover after
// expiry, the former holder told it lost, and release leaving the new holder's records alone.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../src/engine/clock';
import { silentLogger } from '../../../src/engine/log';
import { DirectoryState } from '../../../src/snapshot-agent/dir-state';
import { LeaseCoordinator, defaultLeaseTtlMs } from '../../../src/snapshot-agent/leases';
import { until } from '../../support/poll';

const T0 = Date.UTC(2026, 0, 1);
const SLOT = T0 + 60_000;
let dir: string;
let state: DirectoryState;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kw-leases-'));
  state = await new DirectoryState(join(dir, 'state')).open();
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const agent = (clock: ManualClock) => new LeaseCoordinator(state, clock, silentLogger, { ttlMs: () => 3_000 });

test('the default lease is half the interval, 1 s to 30 s', () => {
  expect(defaultLeaseTtlMs(1)).toBe(1_000);
  expect(defaultLeaseTtlMs(10)).toBe(5_000);
  expect(defaultLeaseTtlMs(86_400)).toBe(30_000);
});

test('one holder per slot; renewals keep it past its first expiry; release frees the slot', async () => {
  const clock = new ManualClock(T0);
  const a = agent(clock);
  const b = agent(clock);
  const held = await a.claim('cfg', SLOT, 60);
  expect(held).toBeDefined();
  expect(await b.claim('cfg', SLOT, 60)).toBeUndefined();
  // Three lease lengths later, still held: every third of a lease the next generation is created
  // (each renewal's file I/O is awaited before the clock moves on).
  for (let i = 0; i < 9; i++) {
    await clock.advance(1_000);
    // Done when the next generation exists and the following renewal is armed.
    await until(
      `renewal ${i + 1}`,
      async () => ({ gens: (await state.list('lease/cfg/')).length, armed: clock.pending() }),
      (v) => v.gens === i + 2 && v.armed === 1,
      { intervalMs: 0 },
    );
  }
  expect(held!.lost.aborted).toBe(false);
  expect(await b.claim('cfg', SLOT, 60)).toBeUndefined();
  await held!.release();
  expect(await state.list('lease/')).toEqual([]);
  expect(await b.claim('cfg', SLOT, 60)).toBeDefined();
});

test('a holder that stands still loses the slot once its lease expires, and is told so', async () => {
  const frozen = new ManualClock(T0);
  const live = new ManualClock(T0);
  const a = agent(frozen);
  const b = agent(live);
  const aHeld = await a.claim('cfg', SLOT, 60);
  expect(aHeld).toBeDefined();
  await live.advance(2_999);
  expect(await b.claim('cfg', SLOT, 60)).toBeUndefined(); // not expired yet
  await live.advance(2);
  const bHeld = await b.claim('cfg', SLOT, 60);
  expect(bHeld).toBeDefined();
  // The paused holder resumes: its renewal finds the next generation taken.
  await frozen.advance(1_000);
  await until('the paused holder told it lost the slot', () => aHeld!.lost.aborted, Boolean, { intervalMs: 0 });
  // Its release leaves the new holder's records, so nobody else can take the slot meanwhile.
  await aHeld!.release();
  expect(await agent(live).claim('cfg', SLOT, 60)).toBeUndefined();
  expect(bHeld!.lost.aborted).toBe(false);
  await bHeld!.release();
});

test('releasing a slot also clears older slots a killed agent left', async () => {
  const clock = new ManualClock(T0);
  expect(await state.createExclusive(`lease/cfg/${SLOT - 60_000}-00000000`, Buffer.from(JSON.stringify({ owner: 'dead', expires_at: T0 })))).toBe(true);
  const held = await agent(clock).claim('cfg', SLOT, 60);
  await held!.release();
  expect(await state.list('lease/')).toEqual([]);
});
