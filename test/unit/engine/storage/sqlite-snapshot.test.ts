// SQLite's snapshot view read in a worker thread: its record chunks carry exactly the entries
// (whole records, an entry larger than a chunk included) and encode to the same state.bin as
// the entry iterator, and closing the view part-way releases its read transaction.

import Database from 'better-sqlite3';
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
  await encodeState(entries, sink, () => undefined);
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

it('closing the view part-way releases its read transaction and ends the reader', async () => {
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
