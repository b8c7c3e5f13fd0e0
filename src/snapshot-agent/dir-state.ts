// --state as a directory: each key a file. Writes go to a temp file (fsynced) renamed over the
// key, so a kill -9 leaves the old value or the new one; create-if-absent is link(2) of a complete
// temp file, which fails with EEXIST atomically (O_EXCL semantics without a half-written file).

import { randomUUID } from 'node:crypto';
import { link, mkdir, open, readFile, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { syncDir } from '../engine/snapshot/targets/local';
import { checkStateKey, type StateStore } from './state-store';

/** Temp files carry this prefix; state keys never start with a dot (checkStateKey). */
const TEMP_PREFIX = '.tmp-';
/** A temp file this old belongs to no write in progress (a write takes milliseconds). */
const STALE_TEMP_MS = 60_000;

export class DirectoryState implements StateStore {
  readonly location: string;

  constructor(dir: string) {
    this.location = resolve(dir);
  }

  async open(): Promise<this> {
    await mkdir(this.location, { recursive: true, mode: 0o700 });
    await this.removeTemps(this.location);
    return this;
  }

  private path(key: string): string {
    checkStateKey(key);
    return join(this.location, ...key.split('/'));
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.path(key));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  private async writeTemp(path: string, value: Buffer): Promise<string> {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const temp = join(dirname(path), `${TEMP_PREFIX}${randomUUID()}`);
    const fh = await open(temp, 'wx', 0o600);
    try {
      await fh.writeFile(value);
      await fh.sync();
    } finally {
      await fh.close();
    }
    return temp;
  }

  async put(key: string, value: Buffer): Promise<void> {
    const path = this.path(key);
    const temp = await this.writeTemp(path, value);
    try {
      await rename(temp, path);
    } catch (e) {
      await rm(temp, { force: true });
      throw e;
    }
    await syncDir(dirname(path));
  }

  async delete(key: string): Promise<void> {
    try {
      await unlink(this.path(key));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    const walk = async (dir: string, rel: string) => {
      let names: import('node:fs').Dirent[];
      try {
        names = await readdir(dir, { withFileTypes: true });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return;
        throw e;
      }
      for (const d of names) {
        if (d.name.startsWith('.')) continue;
        const key = rel === '' ? d.name : `${rel}/${d.name}`;
        if (d.isDirectory()) await walk(join(dir, d.name), key);
        else if (key.startsWith(prefix)) out.push(key);
      }
    };
    // Walks from the deepest directory the prefix names whole.
    const slash = prefix.lastIndexOf('/');
    const base = slash === -1 ? '' : prefix.slice(0, slash);
    await walk(base === '' ? this.location : this.path(base), base);
    return out.sort();
  }

  async createExclusive(key: string, value: Buffer): Promise<boolean> {
    const path = this.path(key);
    const temp = await this.writeTemp(path, value);
    try {
      await link(temp, path);
      await syncDir(dirname(path));
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    } finally {
      await rm(temp, { force: true });
    }
  }

  /**
   * Temp files of a killed agent (a put or create that never finished). Only old ones: another
   * agent on the same directory may be writing one right now.
   */
  private async removeTemps(dir: string): Promise<void> {
    for (const d of await readdir(dir, { withFileTypes: true })) {
      const p = join(dir, d.name);
      if (d.isDirectory()) await this.removeTemps(p);
      else if (d.name.startsWith(TEMP_PREFIX)) {
        const age = Date.now() - (await stat(p).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
        if (age > STALE_TEMP_MS) await rm(p, { force: true });
      }
    }
  }

  async close(): Promise<void> {}
}
