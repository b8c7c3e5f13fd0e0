// The store's SQLite page size: a new file gets 8 KiB pages, and a file made with the old 4 KiB
// default is rewritten once on open, every entry intact, back in
// WAL mode, and well under half its former size for ~1 KB values.

import Database from '../../../../src/engine/storage/sqlite-driver';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PAGE_SIZE } from '../../../../src/engine/storage/sqlite-page-size';
import { SqliteStorage } from '../../../../src/engine/storage/sqlite';
import { writeEarlierStore } from '../../../support/earlier-store';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kw-page-size-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const pageSize = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return [db.pragma('page_size', { simple: true }), db.pragma('journal_mode', { simple: true })];
  } finally {
    db.close();
  }
};

it('gives a new store 8 KiB pages in WAL mode', async () => {
  const file = join(dir, 'new.db');
  const s = new SqliteStorage(file);
  await s.put('a', Buffer.from('x'));
  await s.close();
  expect(pageSize(file)).toEqual([PAGE_SIZE, 'wal']);
});

it('rewrites a 4 KiB-page store once, keeping every entry', async () => {
  const file = join(dir, 'old.db');
  // The layout the store had before: the default 4 KiB pages, WAL mode.
  writeEarlierStore(
    file,
    4096,
    Array.from({ length: 2000 }, (_, i): [string, Buffer] => [`k/${String(i).padStart(5, '0')}`, Buffer.alloc(1000, i % 251)]),
  );
  const before = statSync(file).size;
  expect(pageSize(file)).toEqual([4096, 'wal']);

  const s = new SqliteStorage(file);
  const keys = await s.list('k/');
  expect(keys.length).toBe(2000);
  expect((await s.get('k/01234'))!.equals(Buffer.alloc(1000, 1234 % 251))).toBe(true);
  await s.put('k/new', Buffer.from('after'));
  await s.close();
  expect(pageSize(file)).toEqual([PAGE_SIZE, 'wal']);
  expect(statSync(file).size).toBeLessThan(before / 2);

  const again = new SqliteStorage(file);
  expect((await again.get('k/new'))!.toString()).toBe('after');
  expect((await again.list('k/')).length).toBe(2001);
  await again.close();
});
