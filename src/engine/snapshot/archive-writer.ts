// Writes a snapshot archive (gzip tar: meta.json, state.bin, SHA256SUMS, SHA256SUMS.sealed) from a
// consistent point-in-time view of the store, streaming through scratch files so memory stays flat.

import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { finished, pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import * as tar from 'tar-stream';
import type { Seal } from '../backend';
import type { Storage } from '../storage/storage';
import { encodeState } from './state-codec';

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

export function sha256Line(hex: string, name: string): string {
  return `${hex}  ${name}\n`;
}

async function closeStream(ws: ReturnType<typeof createWriteStream>): Promise<void> {
  ws.end();
  await finished(ws);
}

/**
 * Writes the archive to `file` (which must not exist). state.bin is spooled to a sibling scratch
 * file first because tar headers need its size, and meta.json (first entry) records it.
 */
export async function writeArchiveFile(storage: Storage, seal: Seal, file: string, now: number): Promise<ArchiveFile> {
  const statePath = `${file}.state-${randomUUID()}`;
  try {
    const view = await storage.snapshot();
    const stateHash = createHash('sha256');
    let encoded: { count: number; bytes: number };
    try {
      const ws = createWriteStream(statePath, { flags: 'wx', mode: 0o600 });
      const failed = new Promise<never>((_, reject) => ws.once('error', reject));
      failed.catch(() => undefined);
      encoded = await Promise.race([encodeState(view, ws, (c) => stateHash.update(c)), failed]);
      await closeStream(ws);
    } finally {
      view.close();
    }
    const meta: SnapshotMeta = {
      id: `${now}-${randomUUID().slice(0, 8)}`,
      format: STATE_FORMAT,
      created_at: now,
      entries: encoded.count,
      size: encoded.bytes,
      index: encoded.count,
      term: 1,
    };
    const metaBuf = Buffer.from(JSON.stringify(meta), 'utf8');
    const sums = Buffer.from(
      sha256Line(createHash('sha256').update(metaBuf).digest('hex'), 'meta.json') + sha256Line(stateHash.digest('hex'), 'state.bin'),
      'utf8',
    );
    const sealed = seal.encrypt(sums);

    const pack = tar.pack();
    let size = 0;
    // Level 0 (stored blocks): state.bin is barrier-encrypted ciphertext, which deflate cannot
    // shrink, and compressing it costs ~10x the time of the whole rest of the archive step.
    const gzip = createGzip({ level: 0, chunkSize: 256 * 1024 });
    gzip.on('data', (c: Buffer) => (size += c.length));
    const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
    const done = pipeline(pack, gzip, out);
    const mtime = new Date(now);
    const addBuffer = (name: string, body: Buffer) =>
      new Promise<void>((resolve, reject) => pack.entry({ name, size: body.length, mtime, mode: 0o600 }, body, (e) => (e ? reject(e) : resolve())));
    try {
      await addBuffer('meta.json', metaBuf);
      await new Promise<void>((resolve, reject) => {
        const entry = pack.entry({ name: 'state.bin', size: encoded.bytes, mtime, mode: 0o600 }, (e) => (e ? reject(e) : resolve()));
        createReadStream(statePath, { highWaterMark: 1024 * 1024 }).on('error', reject).pipe(entry);
      });
      await addBuffer('SHA256SUMS', sums);
      await addBuffer('SHA256SUMS.sealed', sealed);
      pack.finalize();
    } catch (e) {
      pack.destroy(e as Error);
      await done.catch(() => undefined);
      throw e;
    }
    await done;
    return { size, meta };
  } catch (e) {
    await rm(file, { force: true });
    throw e;
  } finally {
    await rm(statePath, { force: true });
  }
}
