// Reads and verifies a snapshot archive before anything is restored: exactly the four known entries
// in order, SHA256SUMS checked, SHA256SUMS.sealed opened with this seal (unless forced).

import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import * as tar from 'tar-stream';
import type { Seal } from '../route-family';
import type { StorageEntry } from '../storage/storage';
import { ENTRY_NAMES, STATE_FORMAT, type SnapshotMeta } from './archive-writer';
import { decodeState } from './state-codec';

const SMALL_LIMIT = 8 * 1024;

/** A user error about the archive: the restore route answers 400 with this message. */
export class ArchiveError extends Error {}

export interface VerifiedArchive {
  meta: SnapshotMeta;
  /** Entries of state.bin, read lazily from the spooled copy. */
  entries(): AsyncGenerator<StorageEntry>;
  dispose(): Promise<void>;
}

async function readSmall(entry: Readable, name: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const c of entry as AsyncIterable<Buffer>) {
    n += c.length;
    if (n > SMALL_LIMIT) throw new ArchiveError(`${name} in snapshot is larger than ${SMALL_LIMIT} bytes`);
    parts.push(c);
  }
  return Buffer.concat(parts);
}

function parseSums(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const m = /^([0-9a-f]{64}) {2}(\S+)$/.exec(line);
    if (!m) throw new ArchiveError('failed checking integrity of snapshot: SHA256SUMS is malformed');
    out.set(m[2], m[1]);
  }
  return out;
}

/**
 * Spools and verifies an archive from `input`. Throws ArchiveError for anything wrong with the
 * archive (corrupt, truncated, foreign, other seal); other errors are internal.
 */
export async function readVerifiedArchive(input: Readable, seal: Seal, scratchDir: string, opts: { force: boolean }): Promise<VerifiedArchive> {
  const statePath = join(scratchDir, `restore-${randomUUID()}.state`);
  const small = new Map<string, Buffer>();
  const stateHash = createHash('sha256');
  let stateSize = 0;
  const extract = tar.extract();
  const gunzip = createGunzip();
  let streamError: Error | undefined;
  const piped = pipeline(input, gunzip, extract).catch((e: Error) => {
    streamError = e;
  });
  try {
    let i = 0;
    try {
      for await (const entry of extract) {
        const name = entry.header.name;
        if (i >= ENTRY_NAMES.length || name !== ENTRY_NAMES[i]) throw new ArchiveError(`unexpected file ${JSON.stringify(name)} in snapshot`);
        if (name === 'state.bin') {
          await pipeline(
            entry as unknown as Readable,
            async function* (src: AsyncIterable<Buffer>) {
              for await (const c of src) {
                stateHash.update(c);
                stateSize += c.length;
                yield c;
              }
            },
            createWriteStream(statePath, { flags: 'wx', mode: 0o600 }),
          );
        } else {
          small.set(name, await readSmall(entry as unknown as Readable, name));
        }
        i++;
      }
    } catch (e) {
      if (e instanceof ArchiveError) throw e;
      throw new ArchiveError(`failed to read snapshot: ${(e as Error).message}`);
    }
    await piped;
    if (streamError) throw new ArchiveError(`failed to read snapshot: ${streamError.message}`);
    if (i < ENTRY_NAMES.length) throw new ArchiveError(`incomplete snapshot, unable to read ${ENTRY_NAMES[i]} file`);

    const sumsBuf = small.get('SHA256SUMS')!;
    const sums = parseSums(sumsBuf.toString('utf8'));
    const metaBuf = small.get('meta.json')!;
    const check = (name: string, hex: string) => {
      if (sums.get(name) !== hex) throw new ArchiveError(`failed checking integrity of snapshot: hash check failed for ${JSON.stringify(name)}`);
    };
    check('meta.json', createHash('sha256').update(metaBuf).digest('hex'));
    check('state.bin', stateHash.digest('hex'));
    if (sums.size !== 2) throw new ArchiveError('failed checking integrity of snapshot: SHA256SUMS lists unexpected files');
    if (!opts.force) {
      let opened: Buffer;
      try {
        opened = seal.decrypt(small.get('SHA256SUMS.sealed')!);
      } catch {
        throw new ArchiveError('could not verify hash file, possibly the snapshot is using a different set of unseal keys; use the snapshot-force API to bypass this check');
      }
      if (!opened.equals(sumsBuf)) throw new ArchiveError('failed checking integrity of snapshot: SHA256SUMS.sealed does not match SHA256SUMS');
    }
    let meta: SnapshotMeta;
    try {
      meta = JSON.parse(metaBuf.toString('utf8')) as SnapshotMeta;
    } catch {
      throw new ArchiveError('meta.json in snapshot is not valid JSON');
    }
    if (meta.format !== STATE_FORMAT) throw new ArchiveError(`snapshot format ${JSON.stringify(meta.format)} is not supported (expected ${STATE_FORMAT})`);
    if (meta.size !== stateSize) throw new ArchiveError(`state.bin is ${stateSize} bytes, meta.json says ${meta.size}`);
    // Force skips only the sealed-hash check (as Vault's does). Data this engine cannot decrypt
    // would replace the store with unreadable values (root token gone, reads failing), so every
    // entry is proven to open with this seal before anything is replaced.
    if (opts.force) await proveDecryptable(statePath, seal);
    return {
      meta,
      entries: () => decodeState(createReadStream(statePath)),
      dispose: () => rm(statePath, { force: true }),
    };
  } catch (e) {
    input.resume();
    extract.destroy();
    await piped;
    await rm(statePath, { force: true });
    throw e;
  }
}

async function proveDecryptable(statePath: string, seal: Seal): Promise<void> {
  try {
    for await (const e of decodeState(createReadStream(statePath))) {
      try {
        seal.decrypt(e.value, e.key);
      } catch {
        throw new ArchiveError(
          'snapshot-force refused: the snapshot was written by a server with a different seal key, so its data cannot be decrypted here; nothing was restored',
        );
      }
    }
  } catch (e) {
    if (e instanceof ArchiveError) throw e;
    throw new ArchiveError(`failed to read snapshot: ${(e as Error).message}`);
  }
}
