// The state.bin encoding inside a snapshot archive: every storage entry as length-prefixed key and
// value bytes (values stay barrier-encrypted), then an end marker with the entry count.

import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { reusableChunks } from '../storage/chunk-hints';
import { END_MARK, RECORD_OVERHEAD, STATE_MAGIC, stateEnd, writeRecord } from '../storage/entry-record';
import type { StorageEntry, StorageSnapshot } from '../storage/storage';

export { STATE_MAGIC };
const FLUSH_AT = 256 * 1024;

export class StateFormatError extends Error {}

/** What encodeState writes into: a node Writable or a tar entry (streamx), with backpressure. */
export interface DrainingSink {
  write(chunk: Buffer): boolean;
  once(event: 'drain', listener: () => void): unknown;
}

/** Exact length of the encoding of `count` entries whose keys (UTF-8) and values total `bytes`. */
export function encodedStateSize(count: number, bytes: number): number {
  return STATE_MAGIC.length + count * RECORD_OVERHEAD + bytes + 8;
}

export interface EncodedState {
  count: number;
  bytes: number;
  /** SHA-256 of the whole encoding, hex. */
  sha256: string;
}

/**
 * Streams entries into `out` (backpressure respected) and hashes what it wrote. Memory stays
 * bounded by 2 x FLUSH_AT or the largest entry.
 */
export async function encodeState(entries: AsyncIterable<StorageEntry> | StorageSnapshot, out: DrainingSink): Promise<EncodedState> {
  if ('chunks' in entries && entries.chunks) return passRecords(entries, out);
  const hash = createHash('sha256');
  // Entries are written straight into one chunk buffer (no per-entry allocations); a chunk is
  // handed on whole, so each gets a fresh buffer.
  let chunk = Buffer.allocUnsafe(FLUSH_AT * 2);
  let at = STATE_MAGIC.copy(chunk, 0);
  let bytes = 0;
  let count = 0;
  const flush = async (next: number) => {
    if (at === 0) return;
    const full = chunk.subarray(0, at);
    chunk = Buffer.allocUnsafe(Math.max(FLUSH_AT * 2, next));
    at = 0;
    hash.update(full);
    bytes += full.length;
    if (!out.write(full)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  };
  for await (const e of entries) {
    const need = RECORD_OVERHEAD + Buffer.byteLength(e.key, 'utf8') + e.value.length;
    if (at + need > chunk.length) await flush(need);
    at = writeRecord(chunk, at, e.key, e.value);
    count++;
    if (at >= FLUSH_AT) await flush(0);
  }
  if (at + 8 > chunk.length) await flush(8);
  chunk.writeUInt32BE(END_MARK, at);
  chunk.writeUInt32BE(count, at + 4);
  at += 8;
  await flush(0);
  return { count, bytes, sha256: hash.digest('hex') };
}

/**
 * Records the store already encoded (SQLite's worker) pass through as they are: no copy. Where
 * the store hashed them too (stateSha256), the event loop does not read them at all. The chunks
 * are the view's to give (chunks() makes each for its consumer alone) and nothing here keeps
 * them: the gzip writer may reuse their memory once it has copied them.
 */
async function passRecords(view: StorageSnapshot, out: DrainingSink): Promise<EncodedState> {
  const hash = view.stateSha256 ? undefined : createHash('sha256');
  let bytes = 0;
  const send = async (c: Buffer) => {
    hash?.update(c);
    bytes += c.length;
    if (!out.write(c)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  };
  await send(STATE_MAGIC);
  for await (const c of view.chunks!()) {
    reusableChunks.add(c);
    await send(c);
  }
  await send(stateEnd(view.count));
  const sha256 = hash ? hash.digest('hex') : view.stateSha256!();
  if (!sha256) throw new Error('the store did not report the SHA-256 of the state it read');
  return { count: view.count, bytes, sha256 };
}

/** Reads entries back lazily from a state.bin stream; throws StateFormatError on any damage. */
export async function* decodeState(input: Readable): AsyncGenerator<StorageEntry> {
  const it = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let buf: Buffer = Buffer.alloc(0);
  let off = 0;
  const need = async (n: number): Promise<boolean> => {
    while (buf.length - off < n) {
      const r = await it.next();
      if (r.done) return false;
      buf = off === buf.length ? r.value : Buffer.concat([buf.subarray(off), r.value]);
      off = 0;
    }
    return true;
  };
  const take = (n: number) => {
    const out = buf.subarray(off, off + n);
    off += n;
    return out;
  };
  if (!(await need(STATE_MAGIC.length)) || !take(STATE_MAGIC.length).equals(STATE_MAGIC)) {
    throw new StateFormatError('state.bin has an unknown format');
  }
  let count = 0;
  for (;;) {
    if (!(await need(4))) throw new StateFormatError('state.bin is truncated');
    const klen = take(4).readUInt32BE();
    if (klen === END_MARK) {
      if (!(await need(4))) throw new StateFormatError('state.bin is truncated');
      const expected = take(4).readUInt32BE();
      if (expected !== count) throw new StateFormatError(`state.bin holds ${count} entries, its end marker says ${expected}`);
      if (await need(1)) throw new StateFormatError('state.bin has trailing bytes');
      return;
    }
    if (!(await need(klen + 4))) throw new StateFormatError('state.bin is truncated');
    const key = take(klen).toString('utf8');
    const vlen = take(4).readUInt32BE();
    if (!(await need(vlen))) throw new StateFormatError('state.bin is truncated');
    // Copy: the chunk buffer is reused for later entries.
    const value = Buffer.from(take(vlen));
    count++;
    yield { key, value };
  }
}
