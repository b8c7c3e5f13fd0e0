// The page size of the store's SQLite file, and the one-time migration of files made with the
// old default. kv is a WITHOUT ROWID table, whose rows live in index B-tree cells that hold at most
// about a quarter of a page: with 4 KiB pages every value over ~1 KB (a typical sealed entry) spills
// into an overflow page of its own, so the file is about 4.5x its data (468 MB for 100,000 entries
// of 1 KB) and a snapshot reads a page per entry. With 8 KiB pages values up to ~2 KB stay in
// their cell (104 MB for the same entries; a snapshot produces its archive about a third faster:
// bench/snapshot.ts).

import type Database from './sqlite-driver';

export const PAGE_SIZE = 8192;

/**
 * Gives a new file PAGE_SIZE pages, and rewrites an existing file with other pages (VACUUM, in
 * rollback-journal mode: a WAL database cannot change its page size). Runs before the connection
 * enables WAL, while no other connection has the file open; VACUUM is atomic, so a crash leaves
 * the old file intact and the next start migrates again.
 */
export function ensurePageSize(db: Database.Database): void {
  if ((db.pragma('page_size', { simple: true }) as number) === PAGE_SIZE) return;
  if ((db.pragma('page_count', { simple: true }) as number) === 0) {
    db.pragma(`page_size = ${PAGE_SIZE}`);
    return;
  }
  db.pragma('journal_mode = DELETE');
  db.pragma(`page_size = ${PAGE_SIZE}`);
  db.exec('VACUUM');
}
