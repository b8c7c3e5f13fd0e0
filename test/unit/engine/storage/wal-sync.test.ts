// SQLite storage acknowledges a write only after an fdatasync of the WAL that started after its
// commit, keeps the event loop free while the flush runs, and stops acknowledging after a failed
// flush. The flush is held or failed by an injected fdatasync; everything else is real.

import { fdatasync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../../../../src/engine/storage/sqlite';

type Done = (err: NodeJS.ErrnoException | null) => void;

/** An fdatasync that records each call and lets the test decide when (and how) it ends. */
function heldSync() {
  const calls: { fd: number; done: Done }[] = [];
  return {
    calls,
    fdatasync: (fd: number, done: Done) => calls.push({ fd, done }),
    /** Really flushes, then reports like node:fs would. */
    release: (i: number) => new Promise<void>((resolve) => fdatasync(calls[i].fd, (e) => (calls[i].done(e), resolve()))),
  };
}

const settled = async (p: Promise<unknown>) => {
  let state = 'pending';
  p.then(
    () => (state = 'resolved'),
    () => (state = 'rejected'),
  );
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return state;
};

describe('SqliteStorage with WAL flushes off the event loop', () => {
  const dirs: string[] = [];
  /** Storage in a fresh directory whose flushes the test holds and ends. */
  const open = (maxInFlight?: number) => {
    const dir = mkdtempSync(join(tmpdir(), 'kw-walsync-'));
    dirs.push(dir);
    const sync = heldSync();
    return { sync, s: new SqliteStorage(join(dir, 'db'), { fdatasync: sync.fdatasync, maxInFlight }) };
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('acknowledges a write only when the flush that covers it ends', async () => {
    const { sync, s } = open(1);
    const first = s.put('a', Buffer.from('1'));
    expect(await settled(first)).toBe('pending');
    expect(sync.calls).toHaveLength(1);
    // Committed (readable) but not yet acknowledged.
    expect((await s.get('a'))?.toString()).toBe('1');
    // With one flush allowed at a time, later writes queue behind it and share the next flush.
    const later = [s.put('b', Buffer.from('2')), s.put('c', Buffer.from('3'))];
    expect(await settled(later[0])).toBe('pending');
    expect(sync.calls).toHaveLength(1);
    await sync.release(0);
    expect(await settled(first)).toBe('resolved');
    expect(await settled(later[1])).toBe('pending');
    expect(sync.calls).toHaveLength(2);
    await sync.release(1);
    expect(await settled(Promise.all(later))).toBe('resolved');
    await s.close();
  });

  it('lets a second flush start during the first, and a later flush settles earlier commits', async () => {
    const { sync, s } = open(2);
    const first = s.put('a', Buffer.from('1'));
    await settled(first);
    const second = s.put('b', Buffer.from('2'));
    await settled(second);
    expect(sync.calls).toHaveLength(2);
    // The second flush started after both commits, so it covers both.
    await sync.release(1);
    expect(await settled(first)).toBe('resolved');
    expect(await settled(second)).toBe('resolved');
    await sync.release(0);
    await s.close();
  });

  it('stops acknowledging writes after a failed flush', async () => {
    const { sync, s } = open();
    const w = s.put('a', Buffer.from('1'));
    await settled(w);
    const eio = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    sync.calls[0].done(eio);
    await expect(w).rejects.toThrow(/storage is unavailable: flushing the write-ahead log failed: EIO/);
    await expect(s.put('b', Buffer.from('2'))).rejects.toThrow(/storage is unavailable/);
    expect(await s.get('b')).toBeUndefined(); // refused before the commit, not after
    await expect(s.deletePrefix('')).rejects.toThrow(/storage is unavailable/);
    expect((await s.get('a'))?.toString()).toBe('1');
    await s.close();
  });

  it('close waits for the flush in flight', async () => {
    const { sync, s } = open();
    const w = s.put('a', Buffer.from('1'));
    await settled(w);
    const closing = s.close();
    expect(await settled(closing)).toBe('pending');
    await sync.release(0);
    await closing;
    await expect(w).resolves.toBeUndefined();
  });

  it('holds commits while every flush slot is busy and commits them when any flush ends', async () => {
    const { sync, s } = open(2);
    const a = s.put('a', Buffer.from('1'));
    await settled(a);
    const b = s.put('b', Buffer.from('2'));
    await settled(b);
    const c = s.put('c', Buffer.from('3')); // both slots busy: held, not committed
    expect(await settled(c)).toBe('pending');
    expect(await s.get('c')).toBeUndefined();
    await sync.release(1); // settles a and b; the first flush's call is still running
    expect(await settled(Promise.all([a, b]))).toBe('resolved');
    expect((await s.get('c'))?.toString()).toBe('3'); // a slot freed: c was committed
    expect(sync.calls).toHaveLength(3);
    await sync.release(0);
    await sync.release(2);
    await expect(c).resolves.toBeUndefined();
    await s.close();
  });
});
