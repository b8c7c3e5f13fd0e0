// Worker thread of SQLite snapshot views (see sqlite-snapshot.ts). It keeps one read-only
// connection and serves one view at a time: for each it takes the sizes (the running totals,
// sqlite-totals.ts) and then reads every row in one read transaction, so both describe the same
// point in time, and hands over the entry records in chunks (transferred, not copied), one chunk
// per chunk asked for: the parent's requests bound the memory in flight. It also computes
// state.bin's SHA-256 and each chunk's CRC-32 (for the gzip trailer), so the event loop only
// forwards the chunks.
// A chunk is one page of rows that SQLite itself encodes as records and concatenates (one
// statement and one Buffer per page instead of a JS string and a Buffer per row: half the CPU of
// iterating rows, bench/snapshot.ts). A page is bounded in bytes whatever the values' sizes: its
// row count adapts to the sizes of the rows ahead, which a cheap lengths-only query checks before
// the page is read, and a row larger than the bound is read alone.
// The thread outlives a view, so the next snapshot does not pay for starting a thread and loading
// SQLite again (tens of ms, and tens of MB of memory allocated and dropped per snapshot).

import Database from './sqlite-driver';
import { createHash, type Hash } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { crc32 } from 'node:zlib';
import { STATE_MAGIC, checkRecords, recordSize, stateEnd, writeRecord } from './entry-record';

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

/** Bytes of records in one page (one chunk), unless a single row is larger. */
const PAGE_BYTES = 1024 * 1024;
/** Most rows in one page (tiny entries): the lengths check reads this many rows at most. */
const MAX_ROWS = 16_384;
const FIRST_ROWS = 256;
const port = parentPort!;
const { file, pageBytes = PAGE_BYTES } = workerData as { file: string; pageBytes?: number };
const post = (m: WorkerMessage, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

/**
 * One record (entry-record.ts) made by SQLite: u32 BE key length, key bytes (the file is UTF-8,
 * as CAST and octet_length assume), u32 BE value length, value. `||` joins bytes as they are and
 * CAST(... AS BLOB) keeps them.
 */
const RECORD = "CAST(unhex(printf('%08x', octet_length(k))) || CAST(k AS BLOB) || unhex(printf('%08x', length(v))) || v AS BLOB)";
/** Rows after the last one read (`k > ?`), or from the start (`k >= ''`: the empty key too). */
const after = (first: boolean) => (first ? 'k >= ?' : 'k > ?');

interface Statements {
  /** Count, bytes of keys and values, and the largest record (a row's bytes + 8) ever stored. */
  totals: Database.Statement<[], { n: number; b: number; m: number }>;
  /** The largest record stored now (a scan). */
  largest: Database.Statement<[], { m: number }>;
  /** Count and record bytes of the next rows, from their lengths (the values are not read out). */
  sizes: [Database.Statement<[string, number], [number, number]>, Database.Statement<[string, number], [number, number]>];
  /** The next rows' records concatenated, their count and last key. */
  page: [Database.Statement<[string, number], [Buffer | null, number, string | null]>, Database.Statement<[string, number], [Buffer | null, number, string | null]>];
  /** The next row alone (one larger than a page). */
  row: [Database.Statement<[string], [string, Buffer]>, Database.Statement<[string], [string, Buffer]>];
}

let db: Database.Database | undefined;
let st: Statements | undefined;

function prepare(d: Database.Database): Statements {
  const both = <T>(make: (first: boolean) => T): [T, T] => [make(false), make(true)];
  return {
    // Sizes in the same transaction as the rows, so they describe exactly what is read.
    totals: d.prepare('SELECT n, b, m + 8 AS m FROM kv_totals WHERE id = 0'),
    largest: d.prepare('SELECT COALESCE(MAX(octet_length(k) + length(v)), 0) + 8 AS m FROM kv'),
    sizes: both((first) =>
      d.prepare(`SELECT count(*), COALESCE(sum(len), 0) FROM (SELECT octet_length(k) + length(v) + 8 AS len FROM kv WHERE ${after(first)} ORDER BY k LIMIT ?)`).raw(),
    ),
    // An aggregate's input order is not promised: checkRecords verifies the page is in key order.
    page: both((first) =>
      d.prepare(`SELECT CAST(group_concat(r, '') AS BLOB), count(*), max(k) FROM (SELECT k, ${RECORD} AS r FROM kv WHERE ${after(first)} ORDER BY k LIMIT ?)`).raw(),
    ),
    row: both((first) => d.prepare(`SELECT k, v FROM kv WHERE ${after(first)} ORDER BY k LIMIT 1`).raw()),
  } as Statements;
}

/**
 * The view being served: `last` is the key of the last row read (undefined before the first),
 * `rows` the row count of the next page, `safeRows` how many rows fit in a page whatever their
 * sizes (from the view's largest record): a page of at most that many needs no sizes check.
 */
let current: { view: number; last?: string; rows: number; safeRows: number; seen: number; hash: Hash } | undefined;

/** Ends the view's read transaction (the thread stays for the next one). */
function release(): void {
  current = undefined;
  if (db?.inTransaction) db.exec('COMMIT');
}

function fail(view: number, e: unknown): void {
  post({ type: 'error', view, message: (e as Error).message });
  try {
    release();
  } catch {
    // The connection is broken: a thread that cannot serve views exits, its connection closed.
    closeAndEnd();
  }
}

/** Closes the connection (and so every statement prepared on it) and ends the thread. */
function closeAndEnd(): void {
  try {
    current = undefined;
    st = undefined;
    const d = db;
    db = undefined;
    d?.close();
  } finally {
    port.close();
  }
}

function open(view: number): void {
  release();
  if (!db) {
    db = new Database(file, { readonly: true });
    // A view reads every row once, in key order, each page's rows twice (lengths, then records):
    // a cache of two pages does it. better-sqlite3's default (16 MB) filled up on the first
    // snapshot of a large store and stayed with the idle thread, which grew the process by the
    // store's size up to that much (bench/snapshot.ts: +53 MB -> +36 MB at 25,000 entries).
    db.pragma(`cache_size = -${Math.max(2 * pageBytes, 1024 * 1024) >> 10}`);
    st = prepare(db);
  }
  db.exec('BEGIN');
  const totals = st!.totals.get()!;
  // The stored largest row only grows: one since deleted could make every page need a sizes
  // check, so a bound that would shrink pages below FIRST_ROWS rows is checked with a scan.
  const largest = totals.m * FIRST_ROWS > pageBytes ? st!.largest.get()!.m : totals.m;
  const safeRows = Math.floor(pageBytes / largest);
  current = { view, rows: Math.max(1, Math.min(FIRST_ROWS, safeRows)), safeRows, seen: 0, hash: createHash('sha256').update(STATE_MAGIC) };
  post({ type: 'totals', view, count: totals.n, bytes: totals.b });
}

/** Hashes and sends a chunk (the checksums are this thread's work, not the event loop's). */
function send(v: NonNullable<typeof current>, buf: Buffer, last: boolean): void {
  // Transferred whole: a buffer that shares its memory is copied into one of its own first.
  if (buf.byteOffset !== 0 || buf.buffer.byteLength !== buf.length) buf = Buffer.from(buf);
  v.hash.update(buf);
  const m: Extract<WorkerMessage, { type: 'chunk' }> = { type: 'chunk', view: v.view, data: buf.buffer as ArrayBuffer, length: buf.length, crc: crc32(buf) };
  if (last) {
    m.count = v.seen;
    m.sha256 = v.hash.update(stateEnd(v.seen)).digest('hex');
  }
  post(m, [buf.buffer as ArrayBuffer]);
}

/** Reads the next page of rows into a chunk and sends it; sends the last (empty) chunk at the end. */
function produceChunk(v: NonNullable<typeof current>): void {
  const first = v.last === undefined ? 1 : 0;
  const from = v.last ?? '';
  let chunk: Buffer | undefined;
  let rows = 0;
  while (!chunk) {
    // Up to safeRows rows fit whatever their sizes; more than that are sized before they are read.
    const sized = v.rows <= v.safeRows ? undefined : st!.sizes[first].get(from, v.rows)!;
    if (sized && sized[0] === 0) break;
    if (sized && sized[1] > pageBytes && v.rows > 1) {
      // Larger rows ahead: fewer of them, sized again before anything is read.
      v.rows = Math.max(1, Math.floor((v.rows * pageBytes) / sized[1]));
      continue;
    }
    if (sized && sized[0] === 1 && sized[1] > pageBytes) {
      // A row larger than a page is read alone (SQLite's aggregate would also hit its length limit).
      const [k, val] = st!.row[first].get(from)!;
      chunk = Buffer.allocUnsafeSlow(recordSize(k, val));
      writeRecord(chunk, 0, k, val);
      rows = 1;
      v.last = k;
      break;
    }
    const [page, n, last] = st!.page[first].get(from, v.rows)!;
    if (n === 0) break;
    checkRecords(page!, n, v.last);
    if (sized && (n !== sized[0] || page!.length !== sized[1])) {
      throw new Error(`the snapshot read ${n} rows of ${page!.length} bytes where ${sized[0]} rows of ${sized[1]} bytes were sized`);
    }
    chunk = page!;
    rows = n;
    v.last = last!;
  }
  if (!chunk) {
    send(v, Buffer.alloc(0), true);
    release();
    return;
  }
  v.seen += rows;
  // Next page: as many rows of this page's average size as fill 7/8 of the bound (room for
  // variation; where that exceeds safeRows, the sizes check shrinks it if needed).
  v.rows = Math.min(MAX_ROWS, Math.max(1, Math.floor((rows * pageBytes * 7) / 8 / chunk.length)));
  send(v, chunk, false);
}

port.on('message', (m: ParentMessage) => {
  if (m.type === 'exit') {
    try {
      release();
    } finally {
      closeAndEnd();
    }
    return;
  }
  try {
    if (m.type === 'open') open(m.view);
    else if (current?.view !== m.view)
      return; // a view already ended or released
    else if (m.type === 'stop') release();
    else produceChunk(current);
  } catch (e) {
    fail(m.view, e);
  }
});
