// CRC-32 of a concatenation from the CRCs of its parts (zlib's crc32_combine, which node:zlib does
// not expose): the SQLite snapshot worker computes each chunk's CRC off the event loop, and the
// gzip writer folds it into the stream's CRC in microseconds instead of re-reading the bytes.

/** Reflected CRC-32 polynomial (zlib, gzip). */
const POLY = 0xedb88320;

function times(mat: Uint32Array, vec: number): number {
  let sum = 0;
  for (let i = 0; vec !== 0; i++, vec >>>= 1) if (vec & 1) sum ^= mat[i];
  return sum >>> 0;
}

function square(out: Uint32Array, mat: Uint32Array): void {
  for (let n = 0; n < 32; n++) out[n] = times(mat, mat[n]);
}

/** CRC-32 of A‖B given crc(A), crc(B) and B's length. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (lengthB <= 0) return crcA >>> 0;
  const even = new Uint32Array(32);
  const odd = new Uint32Array(32);
  // The operator for one zero bit, then squared to two and four bits.
  odd[0] = POLY;
  for (let n = 1, row = 1; n < 32; n++, row <<= 1) odd[n] = row;
  square(even, odd);
  square(odd, even);
  let crc = crcA >>> 0;
  let len = lengthB;
  // Applies lengthB zero bytes to crc(A), one bit of the length at a time.
  do {
    square(even, odd);
    if (len % 2) crc = times(even, crc);
    len = Math.floor(len / 2);
    if (len === 0) break;
    square(odd, even);
    if (len % 2) crc = times(odd, crc);
    len = Math.floor(len / 2);
  } while (len !== 0);
  return (crc ^ crcB) >>> 0;
}
