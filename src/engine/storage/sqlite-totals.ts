// Running totals of the kv table (row count, bytes of keys and values, largest row), kept by
// triggers in the same transaction as every write, so they always describe exactly the rows a
// reader's snapshot sees. A snapshot needs them before its first byte (the archive's length goes
// into the upload's Content-Length): reading one row instead of scanning the table took 25-80 ms
// off every snapshot of 25,000-100,000 entries (bench/snapshot.ts). Each write pays one update of
// a one-row table in its trigger.

import type Database from './sqlite-driver';

/** Bytes of a row as the snapshot's record counts them (key's UTF-8 bytes + value bytes). */
const ROW = (r: 'NEW' | 'OLD') => `(octet_length(${r}.k) + length(${r}.v))`;

/**
 * Creates the totals table and its triggers if missing, and fills the table from a scan of kv in
 * the same transaction (once: a store written by an earlier version). `m` is the largest row ever
 * stored, not necessarily the largest now (a delete cannot lower it without a scan): the snapshot
 * reader treats it as an upper bound.
 */
export function ensureTotals(db: Database.Database): void {
  // The table and its triggers are made in one transaction: one present means all are.
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kv_totals'").get()) return;
  db.transaction(() => {
    db.exec(`
      CREATE TABLE kv_totals (id INTEGER PRIMARY KEY CHECK (id = 0), n INTEGER NOT NULL, b INTEGER NOT NULL, m INTEGER NOT NULL);
      INSERT INTO kv_totals (id, n, b, m)
        SELECT 0, count(*), COALESCE(sum(octet_length(k) + length(v)), 0), COALESCE(max(octet_length(k) + length(v)), 0) FROM kv;
      CREATE TRIGGER kv_totals_insert AFTER INSERT ON kv BEGIN
        UPDATE kv_totals SET n = n + 1, b = b + ${ROW('NEW')}, m = max(m, ${ROW('NEW')}) WHERE id = 0;
      END;
      CREATE TRIGGER kv_totals_update AFTER UPDATE ON kv BEGIN
        UPDATE kv_totals SET b = b - ${ROW('OLD')} + ${ROW('NEW')}, m = max(m, ${ROW('NEW')}) WHERE id = 0;
      END;
      CREATE TRIGGER kv_totals_delete AFTER DELETE ON kv BEGIN
        UPDATE kv_totals SET n = n - 1, b = b - ${ROW('OLD')}, m = CASE WHEN n = 1 THEN 0 ELSE m END WHERE id = 0;
      END;
    `);
  })();
}
