// Archive writer and verified reader: round trip, entry layout, and refusal of corrupt, foreign,
// truncated and other-seal archives (force bypasses only the seal check).

import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import * as tar from 'tar-stream';
import { ArchiveError, readVerifiedArchive } from '../../../../src/engine/snapshot/archive-reader';
import { openArchiveStream, writeArchiveFile } from '../../../../src/engine/snapshot/archive-writer';
import { AesSeal } from '../../../../src/engine/seal/aes-seal';
import { MemoryStorage } from '../../../../src/engine/storage/memory';

let dir: string;
const seal = new AesSeal(randomBytes(32));

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kw-archive-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function filled(n: number): Promise<MemoryStorage> {
  const s = new MemoryStorage();
  for (let i = 0; i < n; i++) await s.put(`k/${String(i).padStart(5, '0')}`, randomBytes(1 + (i % 50)));
  return s;
}

async function entryNames(archive: Buffer): Promise<string[]> {
  const extract = tar.extract();
  const names: string[] = [];
  const done = (async () => {
    for await (const e of extract) {
      names.push(e.header.name);
      e.resume();
    }
  })();
  Readable.from([gunzipSync(archive)]).pipe(extract);
  await done;
  return names;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

async function rebuild(archive: Buffer, edit: (name: string, body: Buffer) => Buffer | null, extra?: [string, Buffer]): Promise<Buffer> {
  const extract = tar.extract();
  const pack = tar.pack();
  const parts: Buffer[] = [];
  pack.on('data', (c: unknown) => void parts.push(c as Buffer));
  const ended = new Promise<void>((r) => pack.on('end', () => r()));
  const done = (async () => {
    for await (const e of extract) {
      const chunks: Buffer[] = [];
      for await (const c of e) chunks.push(c as Buffer);
      const body = edit(e.header.name, Buffer.concat(chunks));
      if (body) pack.entry({ name: e.header.name }, body);
    }
    if (extra) pack.entry({ name: extra[0] }, extra[1]);
    pack.finalize();
  })();
  Readable.from([gunzipSync(archive)]).pipe(extract);
  await done;
  await ended;
  return gzipSync(Buffer.concat(parts));
}

describe('snapshot archive', () => {
  it('a consumer giving up while state.bin is being written fails the archive cleanly (no stray error event)', async () => {
    const store = new MemoryStorage();
    for (let i = 0; i < 3000; i++) await store.put(`k/${String(i).padStart(5, '0')}`, randomBytes(1000));
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      const a = await openArchiveStream(store, seal, 1);
      await new Promise<void>((r) => a.stream.once('data', () => r()));
      a.stream.destroy();
      await expect(a.done).rejects.toThrow();
      await new Promise((r) => setTimeout(r, 50));
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });

  it('writes the four entries in order and restores every entry exactly', async () => {
    const store = await filled(2000);
    const file = join(dir, 'a.snap');
    const { meta, size } = await writeArchiveFile(store, seal, file, Date.UTC(2026, 0, 1));
    const bytes = await readFile(file);
    expect(size).toBe(bytes.length);
    expect(meta.entries).toBe(2000);
    expect(await entryNames(bytes)).toEqual(['meta.json', 'state.bin', 'SHA256SUMS', 'SHA256SUMS.sealed']);

    const archive = await readVerifiedArchive(createReadStream(file), seal, dir, { force: false });
    const restored = new MemoryStorage();
    await restored.replaceAll(archive.entries());
    await archive.dispose();
    const a = await collect(await store.snapshot());
    const b = await collect(await restored.snapshot());
    expect(b).toEqual(a);
  });

  it('refuses an archive sealed with another key, forced or not (its data would not decrypt)', async () => {
    const file = join(dir, 'a.snap');
    const store = new MemoryStorage();
    for (let i = 0; i < 10; i++) await store.put(`k/${i}`, seal.encrypt(randomBytes(20), `k/${i}`));
    await writeArchiveFile(store, seal, file, 0);
    const other = new AesSeal(randomBytes(32));
    await expect(readVerifiedArchive(createReadStream(file), other, dir, { force: false })).rejects.toThrow(/different set of unseal keys/);
    await expect(readVerifiedArchive(createReadStream(file), other, dir, { force: true })).rejects.toThrow(/^snapshot-force refused: .*different seal key/);
  });

  it('force skips only the sealed-hash check: a damaged SHA256SUMS.sealed restores when the data decrypts', async () => {
    const file = join(dir, 'a.snap');
    const store = new MemoryStorage();
    for (let i = 0; i < 10; i++) await store.put(`k/${i}`, seal.encrypt(randomBytes(20), `k/${i}`));
    await writeArchiveFile(store, seal, file, 0);
    const resealed = await rebuild(await readFile(file), (name, body) => (name === 'SHA256SUMS.sealed' ? new AesSeal(randomBytes(32)).encrypt(body) : body));
    await expect(readVerifiedArchive(Readable.from([resealed]), seal, dir, { force: false })).rejects.toThrow(/different set of unseal keys/);
    const forced = await readVerifiedArchive(Readable.from([resealed]), seal, dir, { force: true });
    expect((await collect(forced.entries())).length).toBe(10);
    await forced.dispose();
  });

  it('refuses corrupt, truncated, foreign and tampered archives with ArchiveError', async () => {
    const file = join(dir, 'a.snap');
    await writeArchiveFile(await filled(200), seal, file, 0);
    const good = await readFile(file);
    const tamperedState = await rebuild(good, (name, body) => {
      if (name !== 'state.bin') return body;
      const copy = Buffer.from(body);
      copy[copy.length - 20] ^= 0xff;
      return copy;
    });
    const cases: Record<string, Buffer> = {
      'not gzip': Buffer.from('hello, this is not an archive'),
      truncated: good.subarray(0, Math.floor(good.length / 2)),
      'flipped byte': (() => {
        const b = Buffer.from(good);
        b[Math.floor(b.length / 2)] ^= 0xff;
        return b;
      })(),
      'tampered state.bin': tamperedState,
      'missing sealed sums': await rebuild(good, (name, body) => (name === 'SHA256SUMS.sealed' ? null : body)),
      'extra file': await rebuild(good, (_n, body) => body, ['evil.sh', Buffer.from('x')]),
      'foreign tar.gz': gzipSync(Buffer.alloc(1024)),
    };
    for (const [label, bytes] of Object.entries(cases)) {
      const p = join(dir, `${label}.snap`);
      await writeFile(p, bytes);
      await expect(readVerifiedArchive(createReadStream(p), seal, dir, { force: false })).rejects.toBeInstanceOf(ArchiveError);
    }
  });
});
