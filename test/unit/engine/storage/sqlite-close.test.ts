// Closing a SQLite store: once close() resolves nothing of the store touches its file. Snapshot
// views being opened or read fail, and a restore still reading its entries is rolled back; the
// last connection closes, so the WAL and shared-memory files are gone, and later calls are refused.

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../../../../src/engine/storage/sqlite';
import type { StorageEntry } from '../../../../src/engine/storage/storage';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kw-sqlite-close-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The store's files (the database, and its WAL and shared memory while a connection is open). */
const files = () => readdirSync(dir).sort();

async function filled(n: number): Promise<SqliteStorage> {
  const s = new SqliteStorage(join(dir, 'db'));
  await s.batch(Array.from({ length: n }, (_, i) => ({ type: 'put' as const, key: `k/${i}`, value: Buffer.alloc(1000, 1) })));
  return s;
}

it('ends snapshot views being opened and in progress: they fail, no connection outlives it, and a later snapshot is refused', async () => {
  const store = await filled(3000);
  const reading = await store.snapshot();
  const chunks = reading.chunks!()[Symbol.asyncIterator]();
  await chunks.next(); // part-way through
  const opening = store.snapshot(); // its thread is still starting when close() begins
  const outcomes = Promise.allSettled([
    opening.then(async (v) => {
      for await (const c of v.chunks!()) void c;
    }),
    (async () => {
      for (let r = await chunks.next(); !r.done; r = await chunks.next());
    })(),
  ]);
  await store.close();
  expect(files()).toEqual(['db']); // the last connection closed: no WAL, no shared memory
  const [o, r] = await outcomes;
  expect(o.status === 'rejected' ? String(o.reason) : 'read on').toMatch(/store is clos/);
  expect(r.status === 'rejected' ? String(r.reason) : 'read on').toMatch(/store is closing/);
  await new Promise((ok) => setTimeout(ok, 300));
  expect(files()).toEqual(['db']); // and nothing opens the file afterwards
  await expect(store.snapshot()).rejects.toThrow('the store is closed');
});

it('rolls back a restore still reading its entries, and waits for its connection to close', async () => {
  const store = await filled(10);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let yielded = 0;
  async function* entries(): AsyncGenerator<StorageEntry> {
    for (let i = 0; i < 100; i++) {
      if (i === 50) await gate; // the archive is still being read when close() begins
      yielded++;
      yield { key: `new/${i}`, value: Buffer.from('x') };
    }
  }
  const restoring = store.replaceAll(entries());
  const restored = restoring.then(
    () => 'committed',
    (e: Error) => e.message,
  );
  while (yielded < 50) await new Promise((r) => setImmediate(r));
  const closed = store.close();
  release();
  await closed;
  expect(await restored).toBe('the restore was cancelled: the store is closing');
  expect(files()).toEqual(['db']);
  await expect(store.replaceAll(entries())).rejects.toThrow('the store is closed');
  // The restore left nothing: the store holds what it held before.
  const again = new SqliteStorage(join(dir, 'db'));
  try {
    expect(await again.list('new/')).toEqual([]);
    expect((await again.list('k/')).length).toBe(10);
  } finally {
    await again.close();
  }
});
