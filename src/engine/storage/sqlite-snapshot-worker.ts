// Worker thread of a SQLite snapshot view (see sqlite-snapshot.ts): its own read-only connection
// takes the sizes and then reads every row in one read transaction, so both describe the same
// point in time, and writes the rows as entry records into chunks it hands over (transferred, not
// copied), one chunk per chunk asked for: the parent's requests bound the memory in flight.
// Reading and encoding 100 MB costs about half a second of CPU, which the event loop (serving
// requests and the upload itself) no longer pays.

import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { recordSize, writeRecord } from './entry-record';

export type WorkerMessage =
  | { type: 'totals'; count: number; bytes: number }
  /** `count` (entries read in all) comes with the last chunk, which may be empty. */
  | { type: 'chunk'; data: ArrayBuffer; length: number; count?: number }
  | { type: 'error'; message: string };
/** Parent to worker: produce one more chunk, or release the view and exit. */
export type ParentMessage = 'more' | 'stop';

const CHUNK = 1024 * 1024;
const port = parentPort!;
const { file } = workerData as { file: string };
const post = (m: WorkerMessage, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

let db: Database.Database | undefined;
let rows: IterableIterator<[string, Buffer]> | undefined;
/** A row read but not yet written: it did not fit in the chunk before. */
let held: [string, Buffer] | undefined;
let seen = 0;

function finish(): void {
  rows?.return?.();
  rows = undefined;
  if (db?.open) {
    if (db.inTransaction) db.exec('COMMIT');
    db.close();
  }
  port.close();
}

function fail(e: unknown): void {
  post({ type: 'error', message: (e as Error).message });
  try {
    finish();
  } catch {
    port.close();
  }
}

function produceChunk(it: IterableIterator<[string, Buffer]>): void {
  let buf = Buffer.allocUnsafeSlow(CHUNK);
  let at = 0;
  for (;;) {
    const row = held ?? it.next().value;
    held = undefined;
    if (row === undefined) {
      post({ type: 'chunk', data: buf.buffer as ArrayBuffer, length: at, count: seen }, [buf.buffer as ArrayBuffer]);
      finish();
      return;
    }
    const need = recordSize(row[0], row[1]);
    if (at + need > buf.length) {
      if (at > 0) {
        held = row;
        break;
      }
      buf = Buffer.allocUnsafeSlow(need); // an entry larger than a chunk gets a chunk of its own
    }
    at = writeRecord(buf, at, row[0], row[1]);
    seen++;
    if (at >= CHUNK) break;
  }
  post({ type: 'chunk', data: buf.buffer as ArrayBuffer, length: at }, [buf.buffer as ArrayBuffer]);
}

try {
  db = new Database(file, { readonly: true });
  db.exec('BEGIN');
  // Sizes in the same transaction as the rows, so they describe exactly what is iterated.
  const totals = db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(CAST(k AS BLOB)) + LENGTH(v)), 0) AS b FROM kv').get() as { n: number; b: number };
  // Raw rows (arrays): no object per row.
  rows = db.prepare('SELECT k, v FROM kv ORDER BY k').raw().iterate() as IterableIterator<[string, Buffer]>;
  post({ type: 'totals', count: totals.n, bytes: totals.b });
  port.on('message', (m: ParentMessage) => {
    if (m === 'stop') return finish();
    if (!rows) return;
    try {
      produceChunk(rows);
    } catch (e) {
      fail(e);
    }
  });
} catch (e) {
  fail(e);
}
