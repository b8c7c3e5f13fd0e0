// The byte layout of one entry in a snapshot's state.bin: key length (u32 BE), key (UTF-8), value
// length (u32 BE), value. SQLite's snapshot worker writes entries in it directly, so an archive
// takes its bytes as they come, without decoding and re-encoding them on the event loop.

import type { StorageEntry } from './storage';

/** state.bin starts with this and ends with END_MARK and the entry count (u32 BE each). */
export const STATE_MAGIC = Buffer.from('KWSTATE1');
export const END_MARK = 0xffffffff;

/** The 8 bytes that end a state.bin of `count` entries. */
export function stateEnd(count: number): Buffer {
  const end = Buffer.allocUnsafe(8);
  end.writeUInt32BE(END_MARK, 0);
  end.writeUInt32BE(count, 4);
  return end;
}

/** Bytes of one record beyond its key and value. */
export const RECORD_OVERHEAD = 8;

export function recordSize(key: string, value: Buffer): number {
  return RECORD_OVERHEAD + Buffer.byteLength(key, 'utf8') + value.length;
}

/** Writes the record at `at` (the caller made room: recordSize); returns the offset after it. */
export function writeRecord(buf: Buffer, at: number, key: string, value: Buffer): number {
  const klen = buf.write(key, at + 4, 'utf8');
  buf.writeUInt32BE(klen, at);
  at += 4 + klen;
  buf.writeUInt32BE(value.length, at);
  return at + 4 + value.copy(buf, at + 4);
}

/** The entries of a buffer of whole records; values are views into it, not copies. */
export function readRecords(buf: Buffer): StorageEntry[] {
  const out: StorageEntry[] = [];
  let at = 0;
  while (at < buf.length) {
    const klen = buf.readUInt32BE(at);
    const key = buf.toString('utf8', at + 4, at + 4 + klen);
    at += 4 + klen;
    const vlen = buf.readUInt32BE(at);
    out.push({ key, value: buf.subarray(at + 4, at + 4 + vlen) });
    at += 4 + vlen;
  }
  return out;
}

/**
 * Checks that `page` holds exactly `count` whole records whose keys strictly increase, the first
 * above `after`: SQLite's snapshot worker builds pages with an aggregate, whose input order SQL
 * does not promise, and the archive must hold the rows in key order. Throws otherwise.
 */
export function checkRecords(page: Buffer, count: number, after: string | undefined): void {
  const prev = after === undefined ? undefined : Buffer.from(after, 'utf8');
  let ps = 0;
  let pe = prev ? prev.length : 0;
  let src: Buffer | undefined = prev;
  let at = 0;
  let n = 0;
  while (at + 4 <= page.length) {
    const ks = at + 4;
    const ke = ks + page.readUInt32BE(at);
    if (ke + 4 > page.length) break;
    // Byte order of UTF-8 keys is SQLite's BINARY collation: each key must sort after the last.
    if (src && page.compare(src, ps, pe, ks, ke) <= 0) throw new Error('a page of snapshot records is not in key order');
    src = page;
    ps = ks;
    pe = ke;
    at = ke + 4 + page.readUInt32BE(ke);
    n++;
  }
  if (at !== page.length || n !== count) throw new Error(`a page of snapshot records is malformed (${n} of ${count} records, ${at} of ${page.length} bytes)`);
}
