// Writes a snapshot archive (gzip tar: meta.json, state.bin, SHA256SUMS, SHA256SUMS.sealed) from a
// consistent point-in-time view of the store as one stream, produced while it is consumed (an
// upload, a file): memory stays flat and nothing is spooled. The view knows its entry count and
// byte total up front, so state.bin's tar header and meta.json carry its exact size before the
// first entry is read, and the whole archive's length is known before its first byte.

import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar-stream';
import type { Seal } from '../route-family';
import type { Storage } from '../storage/storage';
import { encodeState, encodedStateSize } from './state-codec';
import { StoredGzip, storedGzipSize } from './stored-gzip';

export const ENTRY_NAMES = ['meta.json', 'state.bin', 'SHA256SUMS', 'SHA256SUMS.sealed'] as const;
export const STATE_FORMAT = 'keyward-state-v1';

export interface SnapshotMeta {
  id: string;
  format: typeof STATE_FORMAT;
  /** Milliseconds since the epoch (the engine clock) when the view was taken. */
  created_at: number;
  entries: number;
  /** Size of state.bin in bytes. */
  size: number;
  index: number;
  term: number;
}

export interface ArchiveFile {
  size: number;
  meta: SnapshotMeta;
}

export interface ArchiveStream {
  meta: SnapshotMeta;
  /** Exact length of the archive in bytes, known before its first byte. */
  size: number;
  /** The archive bytes. Destroying it cancels the archive and releases the store's view. */
  stream: Readable;
  /** Resolves once the last byte has been produced; rejects on failure. */
  done: Promise<void>;
  /** The archive's own failure (the store, the encoder), as opposed to its consumer giving up. */
  producerError(): Error | undefined;
}

export function sha256Line(hex: string, name: string): string {
  return `${hex}  ${name}\n`;
}

const TAR_BLOCK = 512;
/** tar size of entries with these body sizes: a header block each, bodies padded, two end blocks. */
function tarSize(bodies: number[]): number {
  return bodies.reduce((n, b) => n + TAR_BLOCK + Math.ceil(b / TAR_BLOCK) * TAR_BLOCK, 0) + 2 * TAR_BLOCK;
}

/** Opens the store's view and starts producing the archive; it flows as `stream` is read. */
export async function openArchiveStream(storage: Storage, seal: Seal, now: number): Promise<ArchiveStream> {
  const view = await storage.snapshot();
  const stateSize = encodedStateSize(view.count, view.bytes);
  const meta: SnapshotMeta = {
    id: `${now}-${randomUUID().slice(0, 8)}`,
    format: STATE_FORMAT,
    created_at: now,
    entries: view.count,
    size: stateSize,
    index: view.count,
    term: 1,
  };
  const metaBuf = Buffer.from(JSON.stringify(meta), 'utf8');
  const metaHash = createHash('sha256').update(metaBuf).digest('hex');

  const sumsLength = Buffer.byteLength(sha256Line('0'.repeat(64), 'meta.json') + sha256Line('0'.repeat(64), 'state.bin'));
  const tarBytes = tarSize([metaBuf.length, stateSize, sumsLength, seal.encrypt(Buffer.alloc(sumsLength)).length]);

  const pack = tar.pack();
  // Stored (uncompressed) gzip blocks: state.bin is barrier-encrypted ciphertext, which deflate
  // cannot shrink, and the fixed framing makes the archive's length known up front.
  const out = new StoredGzip(tarBytes);
  const flowed = pipeline(pack, out);
  // Every step below also ends when the pipeline fails (the consumer destroyed `out`): a write
  // into a destroyed tar entry never calls back.
  const broken = flowed.then(
    () => new Promise<never>(() => undefined),
    (e: unknown) => Promise.reject(e as Error),
  );
  broken.catch(() => undefined);
  const step = <T>(p: Promise<T>) => Promise.race([p, broken]);
  const mtime = new Date(now);
  const entry = (name: string, bodySize: number) => {
    let sink!: ReturnType<typeof pack.entry>;
    const ended = new Promise<void>((ok, fail) => {
      sink = pack.entry({ name, size: bodySize, mtime, mode: 0o600 }, (e) => (e ? fail(e) : ok()));
    });
    // A consumer giving up destroys the pack, which destroys the entry being written with the
    // same error: it reaches us through the callback above, not as an unhandled error event.
    sink.on('error', () => undefined);
    ended.catch(() => undefined);
    return { sink, ended };
  };
  const addBuffer = async (name: string, body: Buffer) => {
    const { sink, ended } = entry(name, body.length);
    sink.end(body);
    await step(ended);
  };

  let failure: Error | undefined;
  const produced = (async () => {
    try {
      await addBuffer('meta.json', metaBuf);
      const state = entry('state.bin', stateSize);
      const encoded = await step(encodeState(view, state.sink));
      if (encoded.bytes !== stateSize) throw new Error(`state.bin came to ${encoded.bytes} bytes, the view announced ${stateSize}`);
      state.sink.end(undefined); // streamx: no final chunk
      await step(state.ended);
      view.close();
      const sums = Buffer.from(sha256Line(metaHash, 'meta.json') + sha256Line(encoded.sha256, 'state.bin'), 'utf8');
      await addBuffer('SHA256SUMS', sums);
      await addBuffer('SHA256SUMS.sealed', seal.encrypt(sums));
      pack.finalize();
    } catch (e) {
      // Only a failure of our own counts as the archive's: a consumer that gave up broke the pipe.
      if (!pack.destroyed && !out.destroyed) failure = e as Error;
      pack.destroy(e as Error);
      throw e;
    } finally {
      view.close();
    }
  })();
  produced.catch(() => undefined);
  const done = Promise.all([flowed, produced]).then(() => undefined);
  done.catch(() => undefined);
  return { meta, size: storedGzipSize(tarBytes), stream: out, done, producerError: () => failure };
}

/**
 * Writes the archive to `file` (which must not exist) and removes it on failure: the manual save
 * route sends a complete file, so a failure is a clean error, never a truncated 200.
 */
export async function writeArchiveFile(storage: Storage, seal: Seal, file: string, now: number): Promise<ArchiveFile> {
  let archive: ArchiveStream | undefined;
  try {
    archive = await openArchiveStream(storage, seal, now);
    await pipeline(archive.stream, createWriteStream(file, { flags: 'wx', mode: 0o600 }));
    await archive.done;
    return { size: archive.size, meta: archive.meta };
  } catch (e) {
    archive?.stream.destroy();
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') await rm(file, { force: true });
    throw archive?.producerError() ?? e;
  }
}
