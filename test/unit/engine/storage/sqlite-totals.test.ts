// The running totals a snapshot reads instead of scanning the table: after any mix of writes
// (new keys, overwrites of another size, deletes, prefix deletes, a whole replacement, multi-byte
// keys) they equal a scan of the rows; a store written before they existed gets them on open; and
// a snapshot announces exactly what it then reads.

import Database from '../../../../src/engine/storage/sqlite-driver';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../../../../src/engine/storage/sqlite';
import { writeEarlierStore } from '../../../support/earlier-store';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kw-totals-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** [stored totals, the same figures from a scan] on a connection of its own. */
function totals(file: string): [unknown, unknown] {
  const db = new Database(file, { readonly: true });
  try {
    return [db.prepare('SELECT n, b FROM kv_totals').get(), db.prepare('SELECT count(*) AS n, COALESCE(sum(octet_length(k) + length(v)), 0) AS b FROM kv').get()];
  } finally {
    db.close();
  }
}

it('equal a scan of the rows after every kind of write', async () => {
  const file = join(dir, 'store.db');
  const s = new SqliteStorage(file);
  let seed = 7;
  const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (let round = 0; round < 20; round++) {
    const ops = Array.from({ length: 50 }, () => {
      const key = `${['a/', 'b/', 'ü/'][rand(3)]}${rand(40)}-€`;
      return rand(4) === 0 ? { type: 'delete' as const, key } : { type: 'put' as const, key, value: Buffer.alloc(rand(3000)) };
    });
    await s.batch(ops);
    await s.put(`a/${rand(40)}-€`, Buffer.alloc(rand(100)));
    if (round % 7 === 6) await s.deletePrefix('b/');
    const [stored, scanned] = totals(file);
    expect(stored).toEqual(scanned);
  }
  await s.replaceAll(
    (async function* () {
      for (let i = 0; i < 30; i++) yield { key: `r/${i}`, value: Buffer.alloc(i * 10) };
    })(),
  );
  const [stored, scanned] = totals(file);
  expect(stored).toEqual(scanned);
  expect(stored).toEqual({ n: 30, b: 10 * 3 + 20 * 4 + 4350 });
  await s.deletePrefix('');
  expect(totals(file)).toEqual([
    { n: 0, b: 0 },
    { n: 0, b: 0 },
  ]);
  await s.close();
});

it('are computed on open for a store written before they existed', async () => {
  const file = join(dir, 'old.db');
  writeEarlierStore(
    file,
    8192,
    Array.from({ length: 100 }, (_, i): [string, Buffer] => [`k${i}`, Buffer.alloc(i)]),
  );
  const s = new SqliteStorage(file);
  expect(totals(file)).toEqual([
    { n: 100, b: 290 + 4950 },
    { n: 100, b: 290 + 4950 },
  ]);
  await s.put('k0', Buffer.alloc(10));
  expect(totals(file)[0]).toEqual({ n: 100, b: 290 + 4960 });
  await s.close();
  // Opening again does not count the rows twice.
  const again = new SqliteStorage(file);
  expect(totals(file)[0]).toEqual({ n: 100, b: 290 + 4960 });
  await again.close();
});

it('a snapshot announces what it reads, also after its largest row was deleted', async () => {
  const s = new SqliteStorage(join(dir, 'store.db'));
  await s.batch(Array.from({ length: 2000 }, (_, i) => ({ type: 'put' as const, key: `k/${String(i).padStart(5, '0')}`, value: Buffer.alloc(500 + (i % 7)) })));
  await s.put('big', Buffer.alloc(3 * 1024 * 1024)); // larger than a page
  await s.delete('big'); // the stored largest row is now an upper bound only
  const view = await s.snapshot();
  let count = 0;
  let bytes = 0;
  for await (const e of view) {
    count++;
    bytes += Buffer.byteLength(e.key) + e.value.length;
  }
  expect([view.count, view.bytes]).toEqual([count, bytes]);
  expect(count).toBe(2000);
  await s.close();
});
