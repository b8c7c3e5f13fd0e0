// The `cloudtwo-store` target (GCS JSON API, @google-cloud/storage). The archive is streamed into
// one upload (a multipart request, or a resumable session for large archives) as it is produced;
// GCS creates the object only when the last byte is accepted, an interrupted request or session
// stays invisible (sessions expire), so the final name never holds a partial.

import { Storage, type GetFilesResponse, type StorageOptions } from '@google-cloud/storage';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { REQUEST_TIMEOUT_MS, joinKey, listPrefix, type ExclusiveCreate, type SnapshotTarget, type StoredObject } from './target';
import { jsonErrorDetail } from '../../json-error';

export interface GcsTargetOptions {
  bucket: string;
  pathPrefix: string;
  /** Service-account key JSON text; application default credentials when absent. */
  serviceAccountKey?: string;
  /** Custom endpoint (host[:port] or URL), e.g. an emulator. */
  endpoint?: string;
  disableTls?: boolean;
  /** Archives larger than this go through a resumable session (default 8 MiB). */
  resumableThreshold?: number;
  /** Per-request timeout in ms (default 30 s). */
  requestTimeoutMs?: number;
}

export class GcsTarget implements SnapshotTarget, ExclusiveCreate {
  readonly storageType = 'cloudtwo-store' as const;
  private readonly storage: Storage;
  private readonly base: string;

  constructor(private readonly opts: GcsTargetOptions) {
    // Per-request timeout and a bounded retry budget: a stalled store fails a request instead of
    // holding it (the attempt's own deadline aborts the upload stream on top of this).
    const options: StorageOptions = {
      timeout: opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
      retryOptions: { autoRetry: true, maxRetries: 2, totalTimeout: 120 },
    };
    if (opts.serviceAccountKey) {
      let key: { project_id?: string };
      try {
        key = JSON.parse(opts.serviceAccountKey) as { project_id?: string };
      } catch (e) {
        // V8's message would quote the key around the error.
        throw new Error(`the service account key is not valid JSON: ${jsonErrorDetail(e as Error)}`);
      }
      options.credentials = key as StorageOptions['credentials'];
      if (key.project_id) options.projectId = key.project_id;
    }
    if (opts.endpoint) {
      const scheme = opts.disableTls ? 'http' : 'https';
      const u = new URL(/^[a-z]+:\/\//i.test(opts.endpoint) ? opts.endpoint : `${scheme}://${opts.endpoint}`);
      if (opts.disableTls) u.protocol = 'http:';
      options.apiEndpoint = u.href.replace(/\/$/, '');
      // A custom endpoint with a key still authenticates (private endpoints); without one it is an emulator.
      options.useAuthWithCustomEndpoint = Boolean(opts.serviceAccountKey);
      this.base = options.apiEndpoint;
    } else {
      this.base = 'https://storage.googleapis.com';
    }
    this.storage = new Storage(options);
  }

  private key(name: string): string {
    return joinKey(this.opts.pathPrefix, name);
  }

  url(name: string): string {
    return `${this.base}/${this.opts.bucket}/${this.key(name).split('/').map(encodeURIComponent).join('/')}`;
  }

  async put(name: string, open: () => Readable, size: number, signal: AbortSignal): Promise<void> {
    const file = this.storage.bucket(this.opts.bucket).file(this.key(name));
    const resumable = size > (this.opts.resumableThreshold ?? 8 * 1024 * 1024);
    await pipeline(
      open(),
      file.createWriteStream({
        resumable,
        validation: 'md5',
        gzip: false,
        metadata: { contentType: 'application/gzip' },
      }),
      // Abort destroys the upload stream: an unfinished session never becomes an object.
      { signal },
    );
  }

  async list(): Promise<StoredObject[]> {
    const prefix = listPrefix(this.opts.pathPrefix);
    const out: StoredObject[] = [];
    type Query = { prefix: string; delimiter: string; autoPaginate: false; pageToken?: string };
    let query: Query | null = {
      prefix,
      delimiter: '/',
      autoPaginate: false,
    };
    while (query) {
      const res: GetFilesResponse = await this.storage.bucket(this.opts.bucket).getFiles(query);
      for (const f of res[0]) out.push({ name: f.name.slice(prefix.length), size: Number(f.metadata.size ?? 0) });
      const pageToken: string | undefined = (res[1] as { pageToken?: string } | null | undefined)?.pageToken;
      query = pageToken ? { ...query, pageToken } : null;
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** An upload with ifGenerationMatch=0 (create only); GCS answers 412 when the object exists. */
  async createIfAbsent(name: string, body: Buffer): Promise<boolean> {
    try {
      await this.storage
        .bucket(this.opts.bucket)
        .file(this.key(name))
        .save(body, { resumable: false, validation: false, preconditionOpts: { ifGenerationMatch: 0 } });
      return true;
    } catch (e) {
      if ((e as { code?: unknown }).code === 412) return false;
      throw e;
    }
  }

  async get(name: string): Promise<Readable> {
    const file = this.storage.bucket(this.opts.bucket).file(this.key(name));
    await file.getMetadata();
    return file.createReadStream({ validation: false });
  }

  async delete(name: string): Promise<void> {
    await this.storage.bucket(this.opts.bucket).file(this.key(name)).delete({ ignoreNotFound: true });
  }

  /** A failed put leaves at most the object itself (a session the store committed late). */
  async discard(name: string): Promise<void> {
    await this.delete(name);
  }

  /** Nothing to clean: unfinished upload sessions hold no object and expire on their own. */
  async cleanup(): Promise<void> {}

  async close(): Promise<void> {}
}
