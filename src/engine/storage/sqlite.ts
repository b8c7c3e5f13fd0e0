// SQLite storage (better-sqlite3, WAL). Writes from concurrent requests share one commit (group
// commit): everything queued during one turn of the event loop is committed together at the end of
// that turn, and each caller is acknowledged only after the WAL holding its write has been flushed
// to disk (see wal-sync.ts), so an acknowledged write survives kill -9 and power loss, and
// throughput grows with concurrency. A commit is visible to readers a moment before it is
// acknowledged, as with any group commit.
// (A writer thread was measured too: the cross-thread handoff cost more CPU per login than the
// commit it moved off the event loop. Only the fsync leaves the event loop.)

import Database from './sqlite-driver';
import { ensurePageSize } from './sqlite-page-size';
import { SqliteSnapshotReaders } from './sqlite-snapshot';
import { ensureTotals } from './sqlite-totals';
import { ownerOnlyDatabaseFiles } from './owner-only';
import type { Storage, StorageEntry, StorageOp, StorageSnapshot } from './storage';
import { WalSync, type WalSyncOptions } from './wal-sync';

interface Pending {
  ops: StorageOp[];
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** Smallest string greater than every string starting with prefix ("" means no upper bound). */
function prefixEnd(prefix: string): string {
  if (prefix === '') return '';
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

const restoreCancelled = () => new Error('the restore was cancelled: the store is closing');

export class SqliteStorage implements Storage {
  private readonly db: Database.Database;
  private readonly wal: WalSync;
  private pending: Pending[] = [];
  private flushScheduled = false;
  private paused = false;
  /** Set by close(): a replaceAll in progress stops (rolled back) and nothing new starts. */
  private closing = false;
  /** The replaceAll in progress: close() waits for its own connection to close. */
  private replacing?: Promise<void>;
  private readonly readers: SqliteSnapshotReaders;
  private readonly stmt: {
    get: Database.Statement<[string], { v: Buffer }>;
    put: Database.Statement<[string, Buffer]>;
    del: Database.Statement<[string]>;
    delRange: Database.Statement<[string, string]>;
    listAll: Database.Statement<[], { k: string }>;
    listRange: Database.Statement<[string, string], { k: string }>;
  };
  /** Made once: better-sqlite3 builds several wrapper functions per transaction() call. */
  private readonly commitGroup: (group: Pending[]) => void;
  private readonly commitOps: (ops: StorageOp[]) => void;

  constructor(
    readonly file: string,
    walSync: WalSyncOptions = {},
  ) {
    // ':memory:' and '' are SQLite's private databases, with no files to protect.
    if (file !== ':memory:' && file !== '') ownerOnlyDatabaseFiles(file);
    this.db = new Database(file);
    ensurePageSize(this.db);
    this.db.pragma('journal_mode = WAL');
    // Crash-consistent without a sync per commit; durability comes from WalSync before each ack.
    this.db.pragma('synchronous = NORMAL');
    // A flush ending frees a slot: commit whatever queued while they were all busy.
    this.wal = new WalSync(`${file}-wal`, walSync, () => this.flush(false));
    this.db.exec('CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID');
    ensureTotals(this.db);
    this.readers = new SqliteSnapshotReaders(file);
    this.stmt = {
      get: this.db.prepare('SELECT v FROM kv WHERE k = ?'),
      put: this.db.prepare('INSERT INTO kv (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v'),
      del: this.db.prepare('DELETE FROM kv WHERE k = ?'),
      delRange: this.db.prepare('DELETE FROM kv WHERE k >= ? AND k < ?'),
      listAll: this.db.prepare('SELECT k FROM kv ORDER BY k'),
      listRange: this.db.prepare('SELECT k FROM kv WHERE k >= ? AND k < ? ORDER BY k'),
    };
    this.commitGroup = this.db.transaction((group: Pending[]) => {
      for (const p of group) this.apply(p.ops);
    });
    this.commitOps = this.db.transaction((ops: StorageOp[]) => this.apply(ops));
  }

  async get(key: string): Promise<Buffer | undefined> {
    return this.stmt.get.get(key)?.v;
  }

  put(key: string, value: Buffer): Promise<void> {
    return this.enqueue([{ type: 'put', key, value }]);
  }

  delete(key: string): Promise<void> {
    return this.enqueue([{ type: 'delete', key }]);
  }

  batch(ops: StorageOp[]): Promise<void> {
    return ops.length === 0 ? Promise.resolve() : this.enqueue(ops);
  }

  async list(prefix: string): Promise<string[]> {
    const rows = prefix === '' ? this.stmt.listAll.all() : this.stmt.listRange.all(prefix, prefixEnd(prefix));
    return rows.map((r) => r.k);
  }

  async deletePrefix(prefix: string): Promise<void> {
    this.flush();
    if (this.wal.failed) throw this.wal.failed;
    this.db.transaction(() => (prefix === '' ? this.db.exec('DELETE FROM kv') : this.stmt.delRange.run(prefix, prefixEnd(prefix))))();
    await this.wal.sync();
  }

  private enqueue(ops: StorageOp[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ ops, resolve, reject });
      if (!this.flushScheduled && !this.paused) {
        this.flushScheduled = true;
        setImmediate(() => this.flush(false));
      }
    });
  }

  private apply(ops: StorageOp[]): void {
    for (const op of ops) {
      if (op.type === 'put') this.stmt.put.run(op.key, op.value);
      else this.stmt.del.run(op.key);
    }
  }

  /**
   * Commits everything queued so far in one transaction, then acknowledges it once it is on disk.
   * While as many flushes to disk run as allowed, writes keep queueing and are committed together
   * when one ends (unless `force`), so each fsync carries every write that arrived meanwhile.
   */
  private flush(force = true): void {
    this.flushScheduled = false;
    if (this.paused || this.pending.length === 0 || (!force && this.wal.saturated)) return;
    const group = this.pending;
    this.pending = [];
    const failed = this.wal.failed;
    if (failed) return group.forEach((p) => p.reject(failed));
    const committed = this.commit(group);
    if (committed.length === 0) return;
    this.wal.sync().then(
      () => committed.forEach((p) => p.resolve()),
      (e: unknown) => committed.forEach((p) => p.reject(e)),
    );
  }

  /** Commits the group in one transaction; returns the callers whose writes were committed. */
  private commit(group: Pending[]): Pending[] {
    try {
      this.commitGroup(group);
      return group;
    } catch {
      // One bad write must not fail its neighbours: retry each caller's ops in its own commit.
      return group.filter((p) => {
        try {
          this.commitOps(p.ops);
          return true;
        } catch (e) {
          p.reject(e);
          return false;
        }
      });
    }
  }

  async snapshot(): Promise<StorageSnapshot> {
    this.flush();
    // Read in a worker thread on its own connection: a read transaction there sees a fixed WAL
    // snapshot while writers go on, and the event loop does not pay for reading every row.
    return this.readers.open();
  }

  replaceAll(entries: AsyncIterable<StorageEntry>): Promise<void> {
    if (this.closing) return Promise.reject(new Error('the store is closed'));
    const run = this.replaceAllNow(entries);
    this.replacing = run.catch(() => undefined);
    return run;
  }

  private async replaceAllNow(entries: AsyncIterable<StorageEntry>): Promise<void> {
    this.flush();
    // Writes arriving meanwhile wait; readers keep seeing the old data until the commit.
    this.paused = true;
    const writer = new Database(this.file);
    writer.pragma('synchronous = FULL');
    const ins = writer.prepare('INSERT INTO kv (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v');
    writer.exec('BEGIN IMMEDIATE');
    try {
      writer.exec('DELETE FROM kv');
      for await (const e of entries) {
        // A restore still reading its archive when the store closes is abandoned, not committed
        // after close() returned.
        if (this.closing) throw restoreCancelled();
        ins.run(e.key, e.value);
      }
      if (this.closing) throw restoreCancelled();
      writer.exec('COMMIT');
    } catch (e) {
      writer.exec('ROLLBACK');
      throw e;
    } finally {
      writer.close();
      this.paused = false;
      if (this.pending.length > 0) setImmediate(() => this.flush());
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.replacing;
    this.flush();
    await this.readers.close();
    await this.wal.close();
    this.db.close();
  }
}
