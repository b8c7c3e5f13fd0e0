// A gzip stream of deflate "stored" blocks (no compression) with fixed-size blocks, so the output
// length is known from the input length before the first byte: an upload can then declare its
// Content-Length up front (one streamed, atomic S3 PutObject or Azure Put Blob) instead of being
// cut into buffered parts. zlib's level 0 makes blocks of whatever size its buffers hold, which
// is not predictable. The archive's payload is ciphertext, which deflate could not shrink anyway.

import { Transform, type TransformCallback } from 'node:stream';
import { crc32 } from 'node:zlib';
import { knownCrc32, reusableChunks } from '../storage/chunk-hints';
import { crc32Combine } from './crc32-combine';

/** Largest stored block deflate allows. */
const BLOCK = 65_535;
// ID1 ID2, CM=deflate, no flags, MTIME 0 (the archive's entries carry their own), XFL 0, OS unix.
const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0x03]);
/** BFINAL=1, BTYPE=00, LEN 0, NLEN 0xffff: an empty last block ends the deflate stream. */
const LAST_BLOCK = Buffer.from([0x01, 0x00, 0x00, 0xff, 0xff]);
const TRAILER_BYTES = 8;

/** Exact length of the gzip stream for `n` input bytes. */
export function storedGzipSize(n: number): number {
  return HEADER.length + Math.ceil(n / BLOCK) * 5 + n + LAST_BLOCK.length + TRAILER_BYTES;
}

/** Output chunk size: few, large writes downstream (a socket or file write per chunk). */
const OUT = 1024 * 1024;
/** A reusable input chunk smaller than this is not worth taking as an output buffer. */
const MIN_REUSE = 64 * 1024;

/**
 * Gzips exactly `inputBytes` bytes; more or fewer is an error (the declared length of the upload
 * would be wrong, and a store must not get a body that differs from it). Output goes out in
 * chunks of about OUT bytes: copying the input once costs less than sending two small buffers (a
 * 5-byte header and a block) per 64 KiB through every stream and socket write downstream. Input
 * chunks marked in reusableChunks serve as output buffers once copied, instead of new ones.
 */
export class StoredGzip extends Transform {
  private crc = 0;
  private seen = 0;
  /** Bytes still to come in the block whose header was written last. */
  private blockLeft = 0;
  private out: Buffer = Buffer.allocUnsafeSlow(OUT);
  private at = 0;
  /** An input chunk already copied out (reusableChunks): the next output buffer. */
  private spare: Buffer | undefined;
  private readonly header = Buffer.alloc(5);

  constructor(private readonly inputBytes: number) {
    super({ highWaterMark: OUT });
    this.append(HEADER, 0, HEADER.length);
  }

  /** Copies src[from, to) into the output chunk, pushing each chunk as it fills. */
  private append(src: Buffer, from: number, to: number): void {
    while (from < to) {
      const n = Math.min(to - from, this.out.length - this.at);
      src.copy(this.out, this.at, from, from + n);
      this.at += n;
      from += n;
      if (this.at === this.out.length) {
        this.push(this.out);
        // Pushed buffers belong downstream now; the next one is a spent input chunk if any.
        this.out = this.spare ?? Buffer.allocUnsafeSlow(OUT);
        this.spare = undefined;
        this.at = 0;
      }
    }
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.inputBytes) return cb(new Error(`archive stream is longer than the ${this.inputBytes} bytes announced`));
    const known = knownCrc32.get(chunk);
    this.crc = known === undefined ? crc32(chunk, this.crc) : crc32Combine(this.crc, known, chunk.length);
    let at = 0;
    while (at < chunk.length) {
      if (this.blockLeft === 0) {
        // Blocks are BLOCK bytes, the last one the rest: the size formula depends on it.
        this.blockLeft = Math.min(BLOCK, this.inputBytes - (this.seen - chunk.length + at));
        this.header[0] = 0x00; // BFINAL=0, BTYPE=00 (stored)
        this.header.writeUInt16LE(this.blockLeft, 1);
        this.header.writeUInt16LE(~this.blockLeft & 0xffff, 3);
        this.append(this.header, 0, 5);
      }
      const n = Math.min(this.blockLeft, chunk.length - at);
      this.append(chunk, at, at + n);
      this.blockLeft -= n;
      at += n;
    }
    // Wholly copied: a chunk its consumer gave up becomes the next output buffer.
    if (chunk.length >= MIN_REUSE && reusableChunks.has(chunk)) {
      reusableChunks.delete(chunk);
      knownCrc32.delete(chunk); // its bytes will change
      this.spare = chunk;
    }
    cb();
  }

  override _flush(cb: TransformCallback): void {
    if (this.seen !== this.inputBytes) return cb(new Error(`archive stream ended after ${this.seen} of the ${this.inputBytes} bytes announced`));
    const trailer = Buffer.allocUnsafe(TRAILER_BYTES);
    trailer.writeUInt32LE(this.crc >>> 0, 0);
    trailer.writeUInt32LE(this.inputBytes % 2 ** 32, 4); // ISIZE is the length modulo 2^32
    this.append(LAST_BLOCK, 0, LAST_BLOCK.length);
    this.append(trailer, 0, TRAILER_BYTES);
    if (this.at > 0) this.push(this.out.subarray(0, this.at));
    cb();
  }
}
