// The stored-block gzip framing: its length is known from the input length alone (what lets an
// upload declare it up front), any gunzip reads it back, and a source that delivers more or fewer
// bytes than announced is an error, never a short or long archive.

import { randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gunzipSync } from 'node:zlib';
import { StoredGzip, storedGzipSize } from '../../../../src/engine/snapshot/stored-gzip';
import { reusableChunks } from '../../../../src/engine/storage/chunk-hints';

async function gzipParts(chunks: Buffer[], announced: number): Promise<Buffer[]> {
  const parts: Buffer[] = [];
  // A plain sink gets each pushed buffer as it is (an async iterator would join buffered ones).
  const sink = new Writable({ write: (c: Buffer, _e, cb) => (parts.push(c), cb()) });
  await pipeline(Readable.from(chunks), new StoredGzip(announced), sink);
  return parts;
}

async function gzip(chunks: Buffer[], announced: number): Promise<Buffer> {
  return Buffer.concat(await gzipParts(chunks, announced));
}

it.each([0, 1, 65_534, 65_535, 65_536, 200_000, 1_000_003])('frames %i bytes in exactly storedGzipSize bytes, whatever the chunking', async (n) => {
  const body = randomBytes(n);
  for (const chunk of [7, 16_384, 65_535, 300_000]) {
    const chunks: Buffer[] = [];
    for (let i = 0; i < n; i += chunk) chunks.push(body.subarray(i, i + chunk));
    const out = await gzip(chunks, n);
    expect(out.length).toBe(storedGzipSize(n));
    expect(gunzipSync(out).equals(body)).toBe(true);
  }
});

it('refuses a source longer or shorter than announced', async () => {
  await expect(gzip([randomBytes(100)], 99)).rejects.toThrow(/longer than the 99 bytes announced/);
  await expect(gzip([randomBytes(100)], 101)).rejects.toThrow(/ended after 100 of the 101 bytes announced/);
});

it('reuses the memory of input chunks given up (reusableChunks) for later output, never of others, and never rewrites output it pushed', async () => {
  const body = randomBytes(5 * 1024 * 1024 + 123);
  const slices = (reusable: boolean) => {
    const chunks: Buffer[] = [];
    for (let i = 0; i < body.length; i += 900_000) {
      const c = Buffer.from(body.subarray(i, i + 900_000)); // a buffer of its own, as a store's chunk
      if (reusable) reusableChunks.add(c);
      chunks.push(c);
    }
    return chunks;
  };
  for (const reusable of [true, false]) {
    const chunks = slices(reusable);
    const memory = new Set(chunks.map((c) => c.buffer));
    // Output buffers are kept as pushed, not copied: a later write into one would show below.
    const parts = await gzipParts(chunks, body.length);
    expect(gunzipSync(Buffer.concat(parts)).equals(body)).toBe(true);
    const reused = parts.filter((p) => memory.has(p.buffer)).length;
    if (reusable) expect(reused).toBeGreaterThan(2);
    else expect(reused).toBe(0);
  }
});
