// The SQLite store's archive: its worker computes state.bin's SHA-256 and each chunk's CRC-32, and
// the event loop only forwards the chunks. The archive must be the very one the generic path (every
// byte read on the event loop) writes from the same entries, and restore exactly.

import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import * as tar from 'tar-stream';
import { readVerifiedArchive } from '../../../../src/engine/snapshot/archive-reader';
import { writeArchiveFile } from '../../../../src/engine/snapshot/archive-writer';
import { AesSeal } from '../../../../src/engine/seal/aes-seal';
import { knownCrc32 } from '../../../../src/engine/storage/chunk-hints';
import { MemoryStorage } from '../../../../src/engine/storage/memory';
import { SqliteStorage } from '../../../../src/engine/storage/sqlite';
import type { StorageEntry } from '../../../../src/engine/storage/storage';

let dir: string;
const seal = new AesSeal(randomBytes(32));

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kw-archive-sqlite-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function entries(archive: Buffer): Promise<Map<string, Buffer>> {
  const extract = tar.extract();
  const out = new Map<string, Buffer>();
  const done = (async () => {
    for await (const e of extract) {
      const parts: Buffer[] = [];
      for await (const c of e) parts.push(c as Buffer);
      out.set(e.header.name, Buffer.concat(parts));
    }
  })();
  // gunzipSync checks the gzip CRC-32 and length: a wrongly combined CRC fails here.
  Readable.from([gunzipSync(archive)]).pipe(extract);
  await done;
  return out;
}

/** Each entry as `key sha256(value)`: jest compares big Buffers byte by byte, very slowly. */
async function collect(it: AsyncIterable<StorageEntry>): Promise<string[]> {
  const out: string[] = [];
  for await (const e of it) out.push(`${e.key} ${createHash('sha256').update(e.value).digest('hex')}`);
  return out;
}

it('the worker-checksummed archive equals the generic one from the same entries, and restores exactly', async () => {
  const sqlite = new SqliteStorage(join(dir, 'db'));
  const memory = new MemoryStorage();
  try {
    // Several ~1 MiB chunks, a value larger than a chunk, multi-byte keys.
    const ops = Array.from({ length: 6000 }, (_, i) => ({ type: 'put' as const, key: `k/${String(i).padStart(5, '0')}-ä`, value: randomBytes(1 + (i % 1500)) }));
    ops.push({ type: 'put', key: 'k/big', value: randomBytes(3 * 1024 * 1024 + 17) });
    await sqlite.batch(ops);
    await memory.batch(ops);

    const known = jest.spyOn(knownCrc32, 'get');
    const now = Date.UTC(2026, 0, 1);
    const a = await writeArchiveFile(sqlite, seal, join(dir, 'sqlite.snap'), now);
    const fromWorker = known.mock.results.filter((r) => r.value !== undefined).length;
    known.mockRestore();
    const b = await writeArchiveFile(memory, seal, join(dir, 'memory.snap'), now);
    // The fast path ran: the state's chunks came with their CRC.
    expect(fromWorker).toBeGreaterThan(3);

    const bytesA = await readFile(join(dir, 'sqlite.snap'));
    const bytesB = await readFile(join(dir, 'memory.snap'));
    expect(bytesA.length).toBe(a.size);
    expect(bytesB.length).toBe(b.size);
    expect(a.size).toBe(b.size);
    const ea = await entries(bytesA);
    const eb = await entries(bytesB);
    // Only the snapshot id (random) and the sealed copy (random IV) may differ.
    expect(ea.get('meta.json')!.toString().replace(a.meta.id, 'ID')).toBe(eb.get('meta.json')!.toString().replace(b.meta.id, 'ID'));
    expect(ea.get('state.bin')!.equals(eb.get('state.bin')!)).toBe(true);
    const stateHash = createHash('sha256').update(ea.get('state.bin')!).digest('hex');
    expect(ea.get('SHA256SUMS')!.toString()).toContain(`${stateHash}  state.bin\n`);
    expect(eb.get('SHA256SUMS')!.toString()).toContain(`${stateHash}  state.bin\n`);
    expect(seal.decrypt(ea.get('SHA256SUMS.sealed')!).equals(ea.get('SHA256SUMS')!)).toBe(true);

    const archive = await readVerifiedArchive(createReadStream(join(dir, 'sqlite.snap')), seal, dir, { force: false });
    const restored = new MemoryStorage();
    await restored.replaceAll(archive.entries());
    await archive.dispose();
    const expected = await collect(await memory.snapshot());
    expect(expected.length).toBe(6001);
    expect(await collect(await restored.snapshot())).toEqual(expected);
  } finally {
    await sqlite.close();
  }
});
