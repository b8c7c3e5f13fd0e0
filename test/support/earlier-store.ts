// A SQLite store file in the layout an earlier keyward wrote (just the kv table, WAL mode, the
// given page size), for tests of the migrations SqliteStorage runs when it opens one.

import Database from '../../src/engine/storage/sqlite-driver';

export function writeEarlierStore(file: string, pageSize: number, entries: Iterable<[string, Buffer]>): void {
  const db = new Database(file);
  try {
    db.pragma(`page_size = ${pageSize}`);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE kv (k TEXT PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID');
    const put = db.prepare('INSERT INTO kv (k, v) VALUES (?, ?)');
    db.transaction(() => {
      for (const [k, v] of entries) put.run(k, v);
    })();
  } finally {
    db.close();
  }
}
