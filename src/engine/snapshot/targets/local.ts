// The `local` target: a directory on this node. Writes go to a dot-prefixed temp file (never
// matching the snapshot pattern), fsynced, then renamed; local_max_space is checked first.

import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { partialName, partialOf, snapshotNamePattern, type SnapshotTarget, type StoredObject } from './target';

export class LocalSpaceError extends Error {}

export interface LocalTargetOptions {
  dir: string;
  filePrefix: string;
  /** Budget in bytes for every file in dir whose name starts with filePrefix. */
  maxSpace: number;
}

export class LocalTarget implements SnapshotTarget {
  readonly storageType = 'local' as const;
  private readonly dir: string;

  constructor(private readonly opts: LocalTargetOptions) {
    this.dir = resolve(opts.dir);
  }

  url(name: string): string {
    return pathToFileURL(join(this.dir, name)).href;
  }

  /** Bytes used by every file whose name starts with file_prefix (not only matching snapshots). */
  async usedSpace(): Promise<number> {
    let used = 0;
    for (const o of await this.list()) if (o.name.startsWith(this.opts.filePrefix)) used += o.size;
    return used;
  }

  async put(name: string, openSource: () => Readable, size: number, signal: AbortSignal): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const used = await this.usedSpace();
    if (used + size > this.opts.maxSpace) {
      // Nothing is deleted to make room: the operator frees space or raises the budget.
      throw new LocalSpaceError(`snapshot of ${size} bytes would exceed local_max_space (${this.opts.maxSpace} bytes, ${used} in use)`);
    }
    const temp = join(this.dir, partialName(name));
    try {
      let written = 0;
      const limit = this.opts.maxSpace - used;
      await pipeline(
        openSource(),
        async function* (src: AsyncIterable<Buffer>) {
          for await (const c of src) {
            written += c.length;
            if (written > limit) throw new LocalSpaceError(`snapshot grew beyond local_max_space (${limit} bytes available)`);
            yield c;
          }
        },
        createWriteStream(temp, { flags: 'wx', mode: 0o600 }),
        { signal },
      );
      const fh = await open(temp, 'r');
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(temp, join(this.dir, name));
      await syncDir(this.dir);
    } catch (e) {
      await rm(temp, { force: true });
      throw e;
    }
  }

  async list(): Promise<StoredObject[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const out: StoredObject[] = [];
    for (const name of names.sort()) {
      try {
        const s = await stat(join(this.dir, name));
        if (s.isFile()) out.push({ name, size: s.size });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
    return out;
  }

  async get(name: string): Promise<Readable> {
    const path = join(this.dir, name);
    await stat(path);
    return createReadStream(path);
  }

  async delete(name: string): Promise<void> {
    try {
      await unlink(join(this.dir, name));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }

  /** The file and the temp file a failed put of `name` may have left. */
  async discard(name: string): Promise<void> {
    await this.delete(name);
    await rm(join(this.dir, partialName(name)), { force: true });
  }

  /**
   * Temp files left by a crash (kill -9 mid-write) of this config's snapshots only: the exact
   * name pattern, so a sibling config whose prefix starts the same (`snap` vs `snap-b`) keeps its
   * in-progress temp file.
   */
  async cleanup(): Promise<void> {
    const pattern = snapshotNamePattern(this.opts.filePrefix);
    for (const o of await this.list()) {
      const of = partialOf(o.name);
      if (of && pattern.test(of)) await rm(join(this.dir, o.name), { force: true });
    }
  }

  async close(): Promise<void> {}
}

/** Makes a rename (or link) in `dir` durable; also used by the snapshot agent's directory state. */
export async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // Some filesystems refuse fsync on directories; rename and link are still atomic.
  }
}
