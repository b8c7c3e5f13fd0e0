// Worker thread of SQLite snapshot views (see sqlite-snapshot.ts). It keeps one read-only
// connection and serves one view at a time: for each it takes the sizes and then reads every row
// in one read transaction, so both describe the same point in time, and writes the rows as entry
// records into chunks it hands over (transferred, not copied), one chunk per chunk asked for: the
// parent's requests bound the memory in flight. It also computes state.bin's SHA-256 and each
// chunk's CRC-32 (for the gzip trailer), so the event loop only forwards the chunks. Reading,
// encoding and checksumming 100 MB costs over half a second of CPU, which the event loop
// (serving requests and the upload itself) no longer pays.
// The thread outlives a view, so the next snapshot does not pay for starting a thread and loading
// SQLite again (tens of ms, and tens of MB of memory allocated and dropped per snapshot).

import Database from 'better-sqlite3';
import { createHash, type Hash } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { crc32 } from 'node:zlib';
import { STATE_MAGIC, recordSize, stateEnd, writeRecord } from './entry-record';

/** Every message names the view it belongs to: a late chunk of a closed view is dropped. */
export type WorkerMessage =
  | { type: 'totals'; view: number; count: number; bytes: number }
  /**
   * `crc` is the chunk's CRC-32. `count` (entries read in all) and `sha256` (of the whole state.bin:
   * magic, records, end marker) come with the last chunk, which may be empty.
   */
  | { type: 'chunk'; view: number; data: ArrayBuffer; length: number; crc: number; count?: number; sha256?: string }
  | { type: 'error'; view: number; message: string };
/** Parent to worker: start view `view`, produce one more chunk of it, release it, or exit. */
export type ParentMessage = { type: 'open'; view: number } | { type: 'more'; view: number } | { type: 'stop'; view: number } | { type: 'exit' };

const CHUNK = 1024 * 1024;
const port = parentPort!;
const { file } = workerData as { file: string };
const post = (m: WorkerMessage, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

let db: Database.Database | undefined;
/** The view being served. */
let current: { view: number; rows: IterableIterator<[string, Buffer]>; seen: number; hash: Hash; held?: [string, Buffer] } | undefined;

/** Ends the view's read transaction (the thread stays for the next one). */
function release(): void {
  current?.rows.return?.();
  current = undefined;
  if (db?.inTransaction) db.exec('COMMIT');
}

function fail(view: number, e: unknown): void {
  post({ type: 'error', view, message: (e as Error).message });
  try {
    release();
  } catch {
    // The connection is broken: a thread that cannot serve views exits.
    port.close();
  }
}

function open(view: number): void {
  release();
  db ??= new Database(file, { readonly: true });
  db.exec('BEGIN');
  // Sizes in the same transaction as the rows, so they describe exactly what is iterated.
  const totals = db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(CAST(k AS BLOB)) + LENGTH(v)), 0) AS b FROM kv').get() as { n: number; b: number };
  // Raw rows (arrays): no object per row.
  const rows = db.prepare('SELECT k, v FROM kv ORDER BY k').raw().iterate() as IterableIterator<[string, Buffer]>;
  current = { view, rows, seen: 0, hash: createHash('sha256').update(STATE_MAGIC) };
  post({ type: 'totals', view, count: totals.n, bytes: totals.b });
}

/** Hashes and sends a chunk (the checksums are this thread's work, not the event loop's). */
function send(v: NonNullable<typeof current>, buf: Buffer, length: number, last: boolean): void {
  const body = buf.subarray(0, length);
  v.hash.update(body);
  const m: Extract<WorkerMessage, { type: 'chunk' }> = { type: 'chunk', view: v.view, data: buf.buffer as ArrayBuffer, length, crc: crc32(body) };
  if (last) {
    m.count = v.seen;
    m.sha256 = v.hash.update(stateEnd(v.seen)).digest('hex');
  }
  post(m, [buf.buffer as ArrayBuffer]);
}

function produceChunk(v: NonNullable<typeof current>): void {
  let buf = Buffer.allocUnsafeSlow(CHUNK);
  let at = 0;
  for (;;) {
    const row = v.held ?? v.rows.next().value;
    v.held = undefined;
    if (row === undefined) {
      send(v, buf, at, true);
      release();
      return;
    }
    const need = recordSize(row[0], row[1]);
    if (at + need > buf.length) {
      if (at > 0) {
        v.held = row;
        break;
      }
      buf = Buffer.allocUnsafeSlow(need); // an entry larger than a chunk gets a chunk of its own
    }
    at = writeRecord(buf, at, row[0], row[1]);
    v.seen++;
    if (at >= CHUNK) break;
  }
  send(v, buf, at, false);
}

port.on('message', (m: ParentMessage) => {
  if (m.type === 'exit') {
    try {
      release();
      db?.close();
    } finally {
      port.close();
    }
    return;
  }
  try {
    if (m.type === 'open') open(m.view);
    else if (current?.view !== m.view) return; // a view already ended or released
    else if (m.type === 'stop') release();
    else produceChunk(current);
  } catch (e) {
    fail(m.view, e);
  }
});
