// SQLite storage (better-sqlite3, WAL, synchronous=FULL). Reads run on the main thread; writes go
// to a writer thread that commits them in groups: concurrent requests' writes share one durable
// commit and each caller is acknowledged only after the commit that holds its write, so
// throughput scales with concurrency without giving up durability on kill -9.

import Database from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import type { Storage, StorageEntry, StorageOp, StorageSnapshot } from './storage';
import { WRITER_SOURCE, type WireOp } from './sqlite-writer';

interface Waiter {
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** Smallest string greater than every string starting with prefix ("" means no upper bound). */
function prefixEnd(prefix: string): string {
  if (prefix === '') return '';
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

export class SqliteStorage implements Storage {
  private readonly db: Database.Database;
  private readonly writer: Worker;
  private pendingOps: WireOp[][] = [];
  private pendingWaiters: Waiter[] = [];
  private inflight = new Map<number, Waiter[]>();
  private seq = 0;
  private scheduled = false;
  private paused = false;
  private idle: (() => void)[] = [];
  private closed = false;
  private readonly stmt: {
    get: Database.Statement<[string], { v: Buffer }>;
    listAll: Database.Statement<[], { k: string }>;
    listRange: Database.Statement<[string, string], { k: string }>;
  };

  constructor(readonly file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.exec('CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID');
    this.stmt = {
      get: this.db.prepare('SELECT v FROM kv WHERE k = ?'),
      listAll: this.db.prepare('SELECT k FROM kv ORDER BY k'),
      listRange: this.db.prepare('SELECT k FROM kv WHERE k >= ? AND k < ? ORDER BY k'),
    };
    this.writer = new Worker(WRITER_SOURCE, { eval: true, workerData: { file, sqlite: require.resolve('better-sqlite3') } });
    this.writer.unref();
    this.writer.on('message', (m: { seq?: number; errors?: (string | null)[] | null }) => this.onAck(m));
    this.writer.on('error', (e) => this.failAll(e));
  }

  async get(key: string): Promise<Buffer | undefined> {
    return this.stmt.get.get(key)?.v;
  }

  put(key: string, value: Buffer): Promise<void> {
    return this.enqueue([{ t: 'p', k: key, v: value }]);
  }

  delete(key: string): Promise<void> {
    return this.enqueue([{ t: 'd', k: key }]);
  }

  batch(ops: StorageOp[]): Promise<void> {
    if (ops.length === 0) return Promise.resolve();
    return this.enqueue(ops.map((op): WireOp => (op.type === 'put' ? { t: 'p', k: op.key, v: op.value } : { t: 'd', k: op.key })));
  }

  deletePrefix(prefix: string): Promise<void> {
    return this.enqueue([{ t: 'r', k: prefix, e: prefixEnd(prefix) }]);
  }

  async list(prefix: string): Promise<string[]> {
    const rows = prefix === '' ? this.stmt.listAll.all() : this.stmt.listRange.all(prefix, prefixEnd(prefix));
    return rows.map((r) => r.k);
  }

  private enqueue(ops: WireOp[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('storage is closed'));
    return new Promise<void>((resolve, reject) => {
      this.pendingOps.push(ops);
      this.pendingWaiters.push({ resolve, reject });
      if (!this.scheduled && !this.paused) {
        this.scheduled = true;
        setImmediate(() => this.send());
      }
    });
  }

  /** Ships everything queued during this turn of the event loop as one message. */
  private send(): void {
    this.scheduled = false;
    if (this.paused || this.pendingOps.length === 0) return;
    const seq = ++this.seq;
    this.inflight.set(seq, this.pendingWaiters);
    this.writer.postMessage({ seq, groups: this.pendingOps });
    this.pendingOps = [];
    this.pendingWaiters = [];
  }

  private onAck(m: { seq?: number; errors?: (string | null)[] | null }): void {
    if (m.seq === undefined) return;
    const waiters = this.inflight.get(m.seq);
    this.inflight.delete(m.seq);
    waiters?.forEach((w, i) => {
      const err = m.errors?.[i];
      if (err) w.reject(new Error(`storage write failed: ${err}`));
      else w.resolve();
    });
    if (this.inflight.size === 0 && this.pendingOps.length === 0) this.idle.splice(0).forEach((f) => f());
  }

  private failAll(e: unknown): void {
    for (const ws of this.inflight.values()) ws.forEach((w) => w.reject(e));
    this.inflight.clear();
    this.pendingWaiters.forEach((w) => w.reject(e));
    this.pendingOps = [];
    this.pendingWaiters = [];
  }

  /** Resolves once every write handed over so far is committed. */
  private drain(): Promise<void> {
    this.send();
    if (this.inflight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  async snapshot(): Promise<StorageSnapshot> {
    await this.drain();
    // A separate read connection inside one transaction sees a fixed WAL snapshot while writers go on.
    const reader = new Database(this.file, { readonly: true });
    reader.exec('BEGIN');
    const count = (reader.prepare('SELECT COUNT(*) AS n FROM kv').get() as { n: number }).n;
    const rows = reader.prepare('SELECT k, v FROM kv ORDER BY k').iterate() as IterableIterator<{ k: string; v: Buffer }>;
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      rows.return?.();
      reader.exec('COMMIT');
      reader.close();
    };
    return {
      count,
      close,
      [Symbol.asyncIterator]: (): AsyncIterator<StorageEntry> => ({
        next: async () => {
          if (closed) return { done: true, value: undefined };
          const r = rows.next();
          if (r.done) {
            close();
            return { done: true, value: undefined };
          }
          return { done: false, value: { key: r.value.k, value: r.value.v } };
        },
        return: async () => {
          close();
          return { done: true, value: undefined };
        },
      }),
    };
  }

  async replaceAll(entries: AsyncIterable<StorageEntry>): Promise<void> {
    // Writes arriving meanwhile wait; readers keep seeing the old data until the commit.
    this.paused = true;
    try {
      await this.drainWhilePaused();
      const writer = new Database(this.file);
      writer.pragma('synchronous = FULL');
      const ins = writer.prepare('INSERT INTO kv (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v');
      writer.exec('BEGIN IMMEDIATE');
      try {
        writer.exec('DELETE FROM kv');
        for await (const e of entries) ins.run(e.key, e.value);
        writer.exec('COMMIT');
      } catch (e) {
        writer.exec('ROLLBACK');
        throw e;
      } finally {
        writer.close();
      }
    } finally {
      this.paused = false;
      this.send();
    }
  }

  private drainWhilePaused(): Promise<void> {
    if (this.inflight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.drain();
    this.closed = true;
    await new Promise<void>((resolve) => {
      this.writer.once('message', () => resolve());
      this.writer.postMessage({ type: 'close' });
    });
    await this.writer.terminate();
    this.db.close();
  }
}
