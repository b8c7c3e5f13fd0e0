// The state.bin encoding inside a snapshot archive: every storage entry as length-prefixed key and
// value bytes (values stay barrier-encrypted), then an end marker with the entry count.

import type { Readable } from 'node:stream';
import { RECORD_OVERHEAD, writeRecord } from '../storage/entry-record';
import type { StorageEntry, StorageSnapshot } from '../storage/storage';

export const STATE_MAGIC = Buffer.from('KWSTATE1');
const END_MARK = 0xffffffff;
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

/**
 * Streams entries into `out` (backpressure respected), feeding every byte to `onChunk` as well
 * (hashing, counting). Memory stays bounded by 2 x FLUSH_AT or the largest entry.
 */
export async function encodeState(
  entries: AsyncIterable<StorageEntry> | StorageSnapshot,
  out: DrainingSink,
  onChunk: (chunk: Buffer) => void,
): Promise<{ count: number; bytes: number }> {
  if ('chunks' in entries && entries.chunks) return passRecords(entries.count, entries.chunks(), out, onChunk);
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
    onChunk(full);
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
  return { count, bytes };
}

/** Records the store already encoded (SQLite's worker) pass through as they are: no copy. */
async function passRecords(
  count: number,
  records: AsyncIterable<Buffer>,
  out: DrainingSink,
  onChunk: (chunk: Buffer) => void,
): Promise<{ count: number; bytes: number }> {
  let bytes = 0;
  const send = async (c: Buffer) => {
    onChunk(c);
    bytes += c.length;
    if (!out.write(c)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  };
  await send(STATE_MAGIC);
  for await (const c of records) await send(c);
  const end = Buffer.allocUnsafe(8);
  end.writeUInt32BE(END_MARK, 0);
  end.writeUInt32BE(count, 4);
  await send(end);
  return { count, bytes };
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
