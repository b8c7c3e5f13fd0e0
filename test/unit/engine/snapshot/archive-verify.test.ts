// The archive verifier (archive-verify.ts): what Vault's client and restore check, on a real
// OpenBao 2.7.2 archive, on the engine's own archives, and on each way an archive is incomplete.

import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import { gunzipSync, gzipSync } from 'node:zlib';
import * as tar from 'tar-stream';
import { verifyArchive, verifyingTee } from '../../../../src/engine/snapshot/archive-verify';
import { openArchiveStream } from '../../../../src/engine/snapshot/archive-writer';
import { AesSeal } from '../../../../src/engine/seal/aes-seal';
import { MemoryStorage } from '../../../../src/engine/storage/memory';
import { obtainGc } from '../../../../src/engine/storage/young-garbage';
import { raftSnapshot } from '../../../support/vault-contract/community';

const verify = (b: Buffer) => verifyArchive(Readable.from([b]));
const failed = async (b: Buffer) => {
  const v = await verify(b);
  expect(v.ok).toBe(false);
  return { check: v.checks.find((c) => c.ok === false)?.check, error: v.error };
};

/** A gzip tar of these entries, in order. */
async function archiveOf(entries: [string, Buffer][]): Promise<Buffer> {
  const pack = tar.pack();
  for (const [name, body] of entries) pack.entry({ name }, body);
  pack.finalize();
  return gzipSync(await buffer(pack));
}

/** The real archive's entries (to rebuild variants of it). */
async function entriesOf(archive: Buffer): Promise<[string, Buffer][]> {
  const extract = tar.extract();
  const out: [string, Buffer][] = [];
  const reading = (async () => {
    for await (const e of extract) out.push([e.header.name, await buffer(e as unknown as Readable)]);
  })();
  Readable.from([gunzipSync(archive)]).pipe(extract);
  await reading;
  return out;
}

test('a real OpenBao 2.7.2 raft snapshot passes every check', async () => {
  const v = await verify(raftSnapshot());
  expect(v).toMatchObject({ ok: true, format: 'vault-raft', bytes: raftSnapshot().length });
  expect(v.checks.map((c) => [c.check, c.ok])).toEqual([
    ['gzip', true],
    ['tar', true],
    ['entries', true],
    ['meta.json', true],
    ['SHA256SUMS', true],
    ['SHA256SUMS.sealed', true],
  ]);
});

test("the engine's own archives pass the same checks (format keyward-state-v1)", async () => {
  const store = new MemoryStorage();
  for (let i = 0; i < 500; i++) await store.put(`k/${i}`, randomBytes(100));
  const a = await openArchiveStream(store, new AesSeal(randomBytes(32)), 1);
  const v = await verifyArchive(a.stream);
  await a.done;
  expect(v).toMatchObject({ ok: true, format: 'keyward-state-v1', bytes: a.size });
});

test('a body cut after a third of the gzip fails the gzip check', async () => {
  const r = await failed(raftSnapshot('cut'));
  expect(r.check).toBe('gzip');
  expect(r.error).toMatch(/the gzip stream is incomplete or corrupt .*: the body ended before the server finished the archive/);
});

test('a complete gzip tar without SHA256SUMS.sealed fails as Vault\'s client does ("incomplete snapshot")', async () => {
  expect(await failed(raftSnapshot('unsealed'))).toEqual({
    check: 'SHA256SUMS.sealed',
    error: 'the snapshot archive failed verification: incomplete snapshot: no SHA256SUMS.sealed in the archive',
  });
});

test('an empty SHA256SUMS.sealed, a changed state.bin, an unknown entry, a wrong size and bytes that are not gzip each fail their check', async () => {
  const real = await entriesOf(raftSnapshot());
  const swap = (name: string, body: Buffer) => real.map(([n, b]): [string, Buffer] => [n, n === name ? body : b]);
  expect((await failed(await archiveOf(swap('SHA256SUMS.sealed', Buffer.alloc(0))))).error).toMatch(/SHA256SUMS\.sealed is empty/);
  const state = Buffer.from(real[1][1]);
  state[0] ^= 1;
  expect(await failed(await archiveOf(swap('state.bin', state)))).toMatchObject({ check: 'SHA256SUMS', error: expect.stringMatching(/sha256 of state\.bin does not match/) });
  expect(await failed(await archiveOf([...real, ['extra', Buffer.from('x')]]))).toMatchObject({ check: 'entries' });
  expect(await failed(await archiveOf(swap('state.bin', Buffer.concat([real[1][1], Buffer.from('x')]))))).toMatchObject({ check: 'meta.json' });
  expect(await failed(Buffer.from('contract raft snapshot of 2.2.0\n'))).toMatchObject({ check: 'gzip' });
  expect(await failed(gzipSync(Buffer.from('not a tar at all'.repeat(100))))).toMatchObject({ check: 'tar' });
});

test('the tee passes every byte on unchanged and reports the verdict, also when it fails', async () => {
  for (const mode of ['complete', 'cut', 'unsealed'] as const) {
    const { tee, verdict } = verifyingTee();
    const chunks = raftSnapshot(mode);
    const parts: Buffer[] = [];
    await pipeline(
      Readable.from(Array.from({ length: Math.ceil(chunks.length / 1000) }, (_, i) => chunks.subarray(i * 1000, (i + 1) * 1000))),
      tee,
      async (src: AsyncIterable<Buffer>) => {
        for await (const c of src) parts.push(c);
      },
    );
    expect(Buffer.concat(parts).equals(chunks)).toBe(true);
    expect((await verdict).ok).toBe(mode === 'complete');
  }
});

test('memory stays flat: a 256 MiB archive is verified as it streams (state.bin is hashed, never held)', async () => {
  const STATE = 256 * 1024 * 1024;
  const CHUNK = 1024 * 1024;
  const chunk = randomBytes(CHUNK);
  const { createHash } = await import('node:crypto');
  const { createGzip } = await import('node:zlib');
  const meta = Buffer.from(JSON.stringify({ Version: 1, ID: 'big', Index: 1, Term: 1, Size: STATE }));
  const pack = tar.pack();
  // What is measured is memory still held, not garbage V8 has yet to collect: how soon it collects
  // depends on timing (CI once measured 66.7 MiB of mostly garbage), so a full collection runs
  // before each sample and the bound is on what the verifier keeps.
  const collect = obtainGc();
  const gc = () => collect({ type: 'major' });
  gc();
  const baseline = process.memoryUsage();
  let peak = 0;
  const sample = () => {
    gc();
    const m = process.memoryUsage();
    peak = Math.max(peak, m.heapUsed + m.arrayBuffers - (baseline.heapUsed + baseline.arrayBuffers));
  };
  const producing = (async () => {
    const write = (name: string, body: Buffer) => new Promise<void>((ok, fail) => pack.entry({ name }, body, (e) => (e ? fail(e) : ok())));
    await write('meta.json', meta);
    const stateHash = createHash('sha256');
    await new Promise<void>((ok, fail) => {
      const entry = pack.entry({ name: 'state.bin', size: STATE }, (e) => (e ? fail(e) : ok()));
      let sent = 0;
      const more = () => {
        while (sent < STATE) {
          sent += CHUNK;
          stateHash.update(chunk);
          if (sent % (16 * CHUNK) === 0) sample();
          if (!entry.write(chunk)) return void entry.once('drain', more);
        }
        entry.end(undefined); // streamx: no final chunk
      };
      more();
    });
    const sums = Buffer.from(`${createHash('sha256').update(meta).digest('hex')}  meta.json\n${stateHash.digest('hex')}  state.bin\n`);
    await write('SHA256SUMS', sums);
    await write('SHA256SUMS.sealed', randomBytes(185));
    pack.finalize();
  })();
  const v = await verifyArchive(pack.pipe(createGzip({ level: 0 })));
  await producing;
  expect(v).toMatchObject({ ok: true, format: 'vault-raft' });
  expect(v.bytes).toBeGreaterThan(STATE);
  // Far below the archive's size: what is held is stream buffers, not the archive.
  console.log(`archive-verify: ${(peak / 1024 / 1024).toFixed(1)} MiB held at most while ${STATE / 1024 / 1024} MiB streamed`);
  expect(peak).toBeLessThan(64 * 1024 * 1024);
}, 60_000);
