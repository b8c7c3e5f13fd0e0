// SQLite's snapshot worker reads pages of rows that SQLite encodes as records: each page is bounded
// in bytes whatever the values' sizes (a row larger than the bound comes alone), and the pages
// hold exactly the view's rows in key order. checkRecords is the guard behind the order.

import Database from '../../../../src/engine/storage/sqlite-driver';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RECORD_OVERHEAD, STATE_MAGIC, checkRecords, readRecords, stateEnd, writeRecord } from '../../../../src/engine/storage/entry-record';
import { SqliteStorage } from '../../../../src/engine/storage/sqlite';
import { SqliteSnapshotReaders } from '../../../../src/engine/storage/sqlite-snapshot';
import type { StorageOp } from '../../../../src/engine/storage/storage';

let dir: string;
let storage: SqliteStorage;
let readers: SqliteSnapshotReaders | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kw-sqlite-pages-'));
  storage = new SqliteStorage(join(dir, 'db'));
});
afterEach(async () => {
  await readers?.close();
  readers = undefined;
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

const PAGE = 16 * 1024;

/** Every chunk of a view read with PAGE-byte pages. */
async function chunksOf(): Promise<{ chunks: Buffer[]; count: number; bytes: number; sha256?: string }> {
  readers ??= new SqliteSnapshotReaders(join(dir, 'db'), PAGE);
  const view = await readers.open();
  const chunks: Buffer[] = [];
  for await (const c of view.chunks!()) chunks.push(Buffer.from(c));
  return { chunks, count: view.count, bytes: view.bytes, sha256: view.stateSha256!() };
}

/** The rows as SQLite orders them, read one by one (the reference). */
function rowsInOrder(): [string, Buffer][] {
  const db = new Database(join(dir, 'db'), { readonly: true });
  try {
    return db.prepare('SELECT k, v FROM kv ORDER BY k').raw().all() as [string, Buffer][];
  } finally {
    db.close();
  }
}

it('bounds every page in bytes whatever the values, and holds exactly the rows in key order', async () => {
  const ops: StorageOp[] = [];
  // Small rows of varied sizes (empty values, multi-byte keys), runs of rows larger than a page
  // right after small ones and at the very end, and the empty key, which sorts first.
  for (let i = 0; i < 1500; i++) ops.push({ type: 'put', key: `k/${String(i).padStart(5, '0')}-ä€`, value: randomBytes(i % 7 === 0 ? 0 : (i * 37) % 3000) });
  for (const i of [40, 41, 42, 700, 1499]) ops.push({ type: 'put', key: `k/${String(i).padStart(5, '0')}-ä€`, value: randomBytes(PAGE * 3 + i) });
  ops.push({ type: 'put', key: `k/${String(701).padStart(5, '0')}-ä€`, value: randomBytes(PAGE - 40) }); // just under the bound
  ops.push({ type: 'put', key: '', value: Buffer.from('first') });
  await storage.batch(ops);

  const { chunks, count, bytes, sha256 } = await chunksOf();
  const expected = rowsInOrder();
  const got = chunks.flatMap((c) => readRecords(c));
  expect(got.map((e) => e.key)).toEqual(expected.map(([k]) => k));
  expect(got.every((e, i) => e.value.equals(expected[i][1]))).toBe(true);
  expect(count).toBe(expected.length);
  expect(bytes).toBe(expected.reduce((n, [k, v]) => n + Buffer.byteLength(k) + v.length, 0));

  for (const c of chunks) {
    const records = readRecords(c).length;
    // Over the bound only as a single row larger than it.
    expect(c.length <= PAGE || records === 1).toBe(true);
  }
  expect(chunks.filter((c) => c.length > PAGE).length).toBe(5);
  expect(chunks.some((c) => readRecords(c).length > 10)).toBe(true);

  const state = Buffer.concat([STATE_MAGIC, ...chunks, stateEnd(count)]);
  expect(sha256).toBe(createHash('sha256').update(state).digest('hex'));
});

it('reads a store of tiny rows in pages too, and an empty store as no records', async () => {
  expect((await chunksOf()).chunks.flatMap((c) => readRecords(c))).toEqual([]);
  const ops: StorageOp[] = Array.from({ length: 5000 }, (_, i) => ({ type: 'put', key: `t${i}`, value: Buffer.from([i & 0xff]) }));
  await storage.batch(ops);
  const { chunks, count } = await chunksOf();
  expect(count).toBe(5000);
  expect(chunks.flatMap((c) => readRecords(c)).map((e) => e.key)).toEqual(rowsInOrder().map(([k]) => k));
  expect(chunks.every((c) => c.length <= PAGE)).toBe(true);
});

describe('checkRecords', () => {
  const page = (...keys: string[]) => {
    const buf = Buffer.alloc(keys.reduce((n, k) => n + RECORD_OVERHEAD + Buffer.byteLength(k) + 3, 0));
    let at = 0;
    for (const k of keys) at = writeRecord(buf, at, k, Buffer.from('val'));
    return buf;
  };

  it('accepts whole records in strictly increasing key order after the last key read', () => {
    expect(() => checkRecords(page('a', 'ab', 'b', 'é'), 4, undefined)).not.toThrow();
    expect(() => checkRecords(page('b', 'c'), 2, 'a')).not.toThrow();
    expect(() => checkRecords(Buffer.alloc(0), 0, 'a')).not.toThrow();
  });

  it('refuses rows out of order, repeated, or not after the last key read', () => {
    expect(() => checkRecords(page('a', 'c', 'b'), 3, undefined)).toThrow('not in key order');
    expect(() => checkRecords(page('a', 'a'), 2, undefined)).toThrow('not in key order');
    expect(() => checkRecords(page('b', 'c'), 2, 'b')).toThrow('not in key order');
    expect(() => checkRecords(page('b', 'c'), 2, 'z')).toThrow('not in key order');
  });

  it('refuses a page that is cut short, has trailing bytes, or holds another number of records', () => {
    const p = page('a', 'b');
    expect(() => checkRecords(p.subarray(0, p.length - 1), 2, undefined)).toThrow('malformed');
    expect(() => checkRecords(Buffer.concat([p, Buffer.from([0])]), 2, undefined)).toThrow('malformed');
    expect(() => checkRecords(p, 3, undefined)).toThrow('malformed');
  });
});
