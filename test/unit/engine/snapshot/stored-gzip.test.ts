// The stored-block gzip framing: its length is known from the input length alone (what lets an
// upload declare it up front), any gunzip reads it back, and a source that delivers more or fewer
// bytes than announced is an error, never a short or long archive.

import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gunzipSync } from 'node:zlib';
import { StoredGzip, storedGzipSize } from '../../../../src/engine/snapshot/stored-gzip';

async function gzip(chunks: Buffer[], announced: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  await pipeline(Readable.from(chunks), new StoredGzip(announced), async (src: AsyncIterable<Buffer>) => {
    for await (const c of src) parts.push(c);
  });
  return Buffer.concat(parts);
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
