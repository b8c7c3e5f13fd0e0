// The GCS JSON-API emulator (test/support/gcs-emulator) driven by the real @google-cloud/storage
// client: chunked resumable uploads (308 + Range), interrupted sessions leave no object, listing
// with prefix/delimiter/pagination, ranged download, delete and not-found errors.

import { Storage } from '@google-cloud/storage';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { startGcsEmulator, type GcsEmulator } from '../../support/gcs-emulator/server';

let emu: GcsEmulator;
let dir: string;
let storage: Storage;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kw-gcs-emu-'));
  emu = await startGcsEmulator({ dir });
  storage = new Storage({ apiEndpoint: emu.url, projectId: 'test', retryOptions: { autoRetry: false } });
  await storage.createBucket('b');
});
afterAll(async () => {
  await emu.close();
  await rm(dir, { recursive: true, force: true });
});

it('accepts a chunked resumable upload and validates its MD5', async () => {
  const body = randomBytes(1024 * 1024 + 17);
  await storage
    .bucket('b')
    .file('dir/chunked.bin')
    .save(body, { resumable: true, chunkSize: 256 * 1024, validation: 'md5' });
  const [meta] = await storage.bucket('b').file('dir/chunked.bin').getMetadata();
  expect(Number(meta.size)).toBe(body.length);
  const [back] = await storage.bucket('b').file('dir/chunked.bin').download();
  expect(back.equals(body)).toBe(true);
});

it('never shows an object for an interrupted resumable session', async () => {
  let sent = 0;
  const source = new Readable({
    read() {
      if (sent++ < 8) this.push(randomBytes(64 * 1024));
      else setImmediate(() => this.destroy(new Error('gone')));
    },
  });
  await expect(pipeline(source, storage.bucket('b').file('dir/broken.bin').createWriteStream({ resumable: true }))).rejects.toThrow();
  const [exists] = await storage.bucket('b').file('dir/broken.bin').exists();
  expect(exists).toBe(false);
});

it('lists with prefix, delimiter and pages', async () => {
  for (const n of ['p/a', 'p/b', 'p/c', 'p/sub/d', 'q/e']) await storage.bucket('b').file(n).save(Buffer.from(n), { resumable: false });
  const [files, next, raw] = await storage.bucket('b').getFiles({ prefix: 'p/', delimiter: '/', autoPaginate: false, maxResults: 2 });
  expect(files.map((f) => f.name)).toEqual(['p/a', 'p/b']);
  expect((raw as { prefixes?: string[] }).prefixes).toEqual(['p/sub/']);
  const [rest] = await storage.bucket('b').getFiles({ ...(next as object), autoPaginate: false });
  expect(rest.map((f) => f.name)).toEqual(['p/c']);
  const [all] = await storage.bucket('b').getFiles({ prefix: 'p/' });
  expect(all.map((f) => f.name)).toEqual(['p/a', 'p/b', 'p/c', 'p/sub/d']);
});

it('serves ranges, deletes, and answers 404 for missing objects and buckets', async () => {
  const [part] = await storage.bucket('b').file('p/a').download({ start: 1, end: 2 });
  expect(part.toString()).toBe('/a');
  await storage.bucket('b').file('p/a').delete();
  await expect(storage.bucket('b').file('p/a').delete()).rejects.toMatchObject({ code: 404 });
  await expect(storage.bucket('nope').file('x').save('x', { resumable: false })).rejects.toMatchObject({ code: 404 });
});
