// SQLite's snapshot view read in a worker thread: its record chunks carry exactly the entries
// (whole records, an entry larger than a chunk included) and encode to the same state.bin as
// the entry iterator, closing the view part-way releases its read transaction, and the reader
// thread is kept for the next view.

import Database from '../../../../src/engine/storage/sqlite-driver';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { readRecords } from '../../../../src/engine/storage/entry-record';
import { SqliteStorage } from '../../../../src/engine/storage/sqlite';
import type { StorageEntry } from '../../../../src/engine/storage/storage';
import { encodeState } from '../../../../src/engine/snapshot/state-codec';

let dir: string;
let storage: SqliteStorage;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kw-sqlite-snap-'));
  storage = new SqliteStorage(join(dir, 'db'));
});
afterEach(async () => {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

async function fill(n: number): Promise<void> {
  const ops = Array.from({ length: n }, (_, i) => ({ type: 'put' as const, key: `k/${String(i).padStart(5, '0')}-ä`, value: Buffer.alloc(1000, i % 251) }));
  ops.push({ type: 'put', key: 'k/big', value: Buffer.alloc(3 * 1024 * 1024, 7) });
  await storage.batch(ops);
}

async function encoded(entries: AsyncIterable<StorageEntry>): Promise<Buffer> {
  const parts: Buffer[] = [];
  const sink = new Writable({ write: (c: Buffer, _e, cb) => (parts.push(Buffer.from(c)), cb()) });
  await encodeState(entries, sink);
  return Buffer.concat(parts);
}

it('chunks hold whole records of every entry, and encode to the same state.bin as the entries', async () => {
  await fill(3000);
  const view = await storage.snapshot();
  expect(view.chunks).toBeDefined();
  const chunks: Buffer[] = [];
  for await (const c of view.chunks!()) chunks.push(c);
  expect(chunks.length).toBeGreaterThan(3); // several ~1 MiB chunks, the big entry in one of its own
  const fromChunks = chunks.flatMap((c) => readRecords(c));
  expect(fromChunks.length).toBe(view.count);
  expect(fromChunks.reduce((n, e) => n + Buffer.byteLength(e.key) + e.value.length, 0)).toBe(view.bytes);

  const viaChunks = await encoded(await storage.snapshot());
  const iterated = await storage.snapshot();
  const plain: AsyncIterable<StorageEntry> = { [Symbol.asyncIterator]: () => iterated[Symbol.asyncIterator]() };
  const viaEntries = await encoded(plain);
  expect(viaChunks.equals(viaEntries)).toBe(true);
});

it('closing the view part-way releases its read transaction', async () => {
  await fill(5000);
  const view = await storage.snapshot();
  const it = view.chunks!()[Symbol.asyncIterator]();
  expect((await it.next()).done).toBe(false);
  await storage.put('k/after', Buffer.from('x'));
  const checker = new Database(join(dir, 'db'), { timeout: 0 });
  const truncate = () => (checker.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[])[0].busy;
  expect(truncate()).toBe(1); // the view's read transaction holds the WAL
  view.close();
  expect((await it.next()).done).toBe(true);
  const until = Date.now() + 10_000;
  while (truncate() !== 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  expect(truncate()).toBe(0);
  checker.close();
});

it('keeps one reader thread for the next view; a view that overlaps gets its own, and late chunks of a closed view never reach the next', async () => {
  await fill(3000);
  // Threads started, counted on the module object the store's code reads Worker from.
  const wt = require('node:worker_threads') as { Worker: typeof import('node:worker_threads').Worker };
  const Original = wt.Worker;
  let started = 0;
  wt.Worker = class extends Original {
    constructor(...args: ConstructorParameters<typeof Original>) {
      super(...args);
      started++;
    }
  };
  try {
    const count = async (v: Awaited<ReturnType<typeof storage.snapshot>>) => {
      let n = 0;
      for await (const c of v.chunks!()) n += readRecords(c).length;
      return n;
    };
    const first = await storage.snapshot();
    expect(await count(first)).toBe(3001);
    // Closed part-way with chunks still coming: the thread serves the next view, whose entries
    // are its own (a write in between included), not the late chunks of this one.
    const partial = await storage.snapshot();
    const it = partial.chunks!()[Symbol.asyncIterator]();
    await it.next();
    partial.close();
    await storage.put('k/later', Buffer.from('y'));
    const [a, b] = await Promise.all([storage.snapshot(), storage.snapshot()]);
    expect([a.count, b.count]).toEqual([3002, 3002]);
    expect(await Promise.all([count(a), count(b)])).toEqual([3002, 3002]);
    // One thread for the consecutive views, one more for the view that overlapped.
    expect(started).toBe(2);
    expect(await count(await storage.snapshot())).toBe(3002);
    expect(started).toBe(2);
  } finally {
    wt.Worker = Original;
  }
});

it('reports the SHA-256 of the state.bin its chunks make, once they are all handed out', async () => {
  await fill(3000);
  const view = await storage.snapshot();
  expect(view.stateSha256!()).toBeUndefined();
  const chunks: Buffer[] = [];
  for await (const c of view.chunks!()) chunks.push(c);
  const state = await encoded(await storage.snapshot());
  expect(view.stateSha256!()).toBe(createHash('sha256').update(state).digest('hex'));
});

it('has no SHA-256 for a view closed before its end', async () => {
  await fill(3000);
  const view = await storage.snapshot();
  const it = view.chunks!()[Symbol.asyncIterator]();
  await it.next();
  await it.return?.();
  expect(view.stateSha256!()).toBeUndefined();
});
