// Buckets, finalized objects and resumable upload sessions of the GCS emulator, with object bodies
// on disk (a session file is renamed into place only when the upload completes, like GCS commits).

import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { ObjectHasher } from './hashes';

export interface ObjectRecord {
  bucket: string;
  name: string;
  size: number;
  contentType: string;
  md5Hash: string;
  crc32c: string;
  generation: string;
  created: string;
  file: string;
}

export interface UploadSession {
  id: string;
  bucket: string;
  name: string;
  contentType: string;
  received: number;
  file: string;
  hasher: ObjectHasher;
  done?: ObjectRecord;
}

export class EmulatorError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly reason = 'invalid',
  ) {
    super(message);
  }
}

export class GcsStore {
  readonly buckets = new Map<string, { name: string; created: string; objects: Map<string, ObjectRecord> }>();
  readonly sessions = new Map<string, UploadSession>();
  private generation = Date.now() * 1000;
  /** Tests: while set, every upload request waits for it before committing (to hold an attempt open). */
  uploadGate?: Promise<void>;
  /** Upload requests being served now, and the most seen at once. */
  activeUploads = 0;
  maxActiveUploads = 0;

  constructor(readonly dir: string) {}

  async init(): Promise<void> {
    await mkdir(join(this.dir, 'objects'), { recursive: true });
    await mkdir(join(this.dir, 'sessions'), { recursive: true });
  }

  createBucket(name: string) {
    if (this.buckets.has(name)) throw new EmulatorError(409, `Your previous request to create the named bucket succeeded and you already own it.`, 'conflict');
    const b = { name, created: new Date().toISOString(), objects: new Map<string, ObjectRecord>() };
    this.buckets.set(name, b);
    return b;
  }

  bucket(name: string) {
    const b = this.buckets.get(name);
    if (!b) throw new EmulatorError(404, 'The specified bucket does not exist.', 'notFound');
    return b;
  }

  object(bucket: string, name: string): ObjectRecord {
    const o = this.bucket(bucket).objects.get(name);
    if (!o) throw new EmulatorError(404, `No such object: ${bucket}/${name}`, 'notFound');
    return o;
  }

  async deleteObject(bucket: string, name: string): Promise<void> {
    const o = this.object(bucket, name);
    this.bucket(bucket).objects.delete(name);
    await rm(o.file, { force: true });
  }

  openSession(bucket: string, name: string, contentType: string): UploadSession {
    this.bucket(bucket);
    const id = randomUUID();
    const s: UploadSession = { id, bucket, name, contentType, received: 0, file: join(this.dir, 'sessions', id), hasher: new ObjectHasher() };
    this.sessions.set(id, s);
    return s;
  }

  /** Appends a request body to a session; resolves false if the client went away mid-body. */
  async append(s: UploadSession, body: Readable, skip: number): Promise<boolean> {
    const out = createWriteStream(s.file, { flags: 'a' });
    let toSkip = skip;
    let ok = true;
    try {
      for await (const c of body as AsyncIterable<Buffer>) {
        let chunk = c;
        if (toSkip > 0) {
          const n = Math.min(toSkip, chunk.length);
          chunk = chunk.subarray(n);
          toSkip -= n;
        }
        if (chunk.length === 0) continue;
        s.hasher.update(chunk);
        s.received += chunk.length;
        if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
      }
    } catch {
      ok = false;
    }
    await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
    return ok && !(body as { aborted?: boolean }).aborted;
  }

  /**
   * Commits a complete session as the object's new generation (atomic rename). With
   * `ifGenerationMatch` "0" (GCS's create-only precondition) an existing object fails it with 412;
   * checked and committed with no await between, so of racing creates exactly one wins.
   */
  async finalize(s: UploadSession, expectedMd5?: string, ifGenerationMatch?: string | null): Promise<ObjectRecord> {
    const { md5Hash, crc32c } = s.hasher.digest();
    if (expectedMd5 && expectedMd5 !== md5Hash) {
      this.sessions.delete(s.id);
      await rm(s.file, { force: true });
      throw new EmulatorError(400, `Provided MD5 hash "${expectedMd5}" doesn't match calculated MD5 hash "${md5Hash}".`);
    }
    const b = this.bucket(s.bucket);
    const file = join(this.dir, 'objects', randomUUID());
    await rename(s.file, file);
    const previous = b.objects.get(s.name);
    if (ifGenerationMatch != null && ifGenerationMatch !== (previous?.generation ?? '0')) {
      await rm(file, { force: true });
      throw new EmulatorError(412, 'At least one of the pre-conditions you specified did not hold.', 'conditionNotMet');
    }
    const rec: ObjectRecord = {
      bucket: s.bucket,
      name: s.name,
      size: s.received,
      contentType: s.contentType,
      md5Hash,
      crc32c,
      generation: String(++this.generation),
      created: new Date().toISOString(),
      file,
    };
    b.objects.set(s.name, rec);
    if (previous) await rm(previous.file, { force: true });
    s.done = rec;
    return rec;
  }

  read(o: ObjectRecord, start?: number, end?: number): Readable {
    return createReadStream(o.file, { start, end });
  }

  list(bucket: string, prefix: string, delimiter: string): { items: ObjectRecord[]; prefixes: string[] } {
    const items: ObjectRecord[] = [];
    const prefixes = new Set<string>();
    for (const o of [...this.bucket(bucket).objects.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (!o.name.startsWith(prefix)) continue;
      const rest = o.name.slice(prefix.length);
      const i = delimiter ? rest.indexOf(delimiter) : -1;
      if (i >= 0) prefixes.add(prefix + rest.slice(0, i + delimiter.length));
      else items.push(o);
    }
    return { items, prefixes: [...prefixes].sort() };
  }
}
