// The `cloudone-store` target (S3 API, @aws-sdk/client-s3). S3 has no rename; the archive streams
// into @aws-sdk/lib-storage's Upload as it is produced: an archive up to one part is a single
// PutObject (atomic: the key appears when the whole body has arrived), a larger one a multipart
// upload whose parts stay invisible until CompleteMultipartUpload, with PART_QUEUE parts in
// flight (memory stays flat whatever the archive size). A streamed single PutObject would be
// atomic on S3 too, but S3-compatible stores such as s3rver write it under its final name as it
// arrives. A failure aborts the multipart upload, and the key gets a best-effort delete: a request
// the store completed but whose answer was lost must not leave an object the status calls failed.

import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type PutObjectCommandInput,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Readable } from 'node:stream';
import { joinKey, listPrefix, type SnapshotTarget, type StoredObject } from './target';

export interface S3TargetOptions {
  bucket: string;
  region: string;
  pathPrefix: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  /** Host[:port] or a full URL of a non-native implementation. */
  endpoint?: string;
  disableTls?: boolean;
  forcePathStyle?: boolean;
  enableKms?: boolean;
  kmsKey?: string;
  serverSideEncryption?: boolean;
  /**
   * Part size (default 8 MiB, at least 5 MiB): larger archives use a multipart upload, smaller
   * ones one PutObject. At most PART_QUEUE + 1 parts are buffered.
   */
  partSize?: number;
  /** Socket idle timeout of a request in ms (default 30 s); connect timeout is 10 s. */
  requestTimeoutMs?: number;
}

const REQUEST_TIMEOUT_MS = 30_000;
const CONNECT_TIMEOUT_MS = 10_000;
/** The best-effort delete after a failed put gets this long (the store may be the thing stalled). */
const CLEANUP_TIMEOUT_MS = 5_000;
/** When the cleanup deletes the key a second time. */
const LATE_COMMIT_MS = 500;

const DEFAULT_PART = 8 * 1024 * 1024;
/** Parts uploading at once: overlaps the network with producing the next part. */
const PART_QUEUE = 2;

export class S3Target implements SnapshotTarget {
  readonly storageType = 'cloudone-store' as const;
  private readonly client: S3Client;
  private readonly endpointUrl?: URL;
  private readonly cleanups = new Set<Promise<void>>();

  constructor(private readonly opts: S3TargetOptions) {
    if (opts.endpoint) {
      const scheme = opts.disableTls ? 'http' : 'https';
      this.endpointUrl = new URL(/^[a-z]+:\/\//i.test(opts.endpoint) ? opts.endpoint : `${scheme}://${opts.endpoint}`);
      if (opts.disableTls) this.endpointUrl.protocol = 'http:';
    }
    this.client = new S3Client({
      region: opts.region,
      endpoint: this.endpointUrl?.href.replace(/\/$/, ''),
      forcePathStyle: opts.forcePathStyle ?? false,
      tls: !opts.disableTls,
      // Without static keys the SDK's default chain applies (env, shared files, container, IMDS, web identity).
      credentials: opts.accessKeyId
        ? { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey ?? '', sessionToken: opts.sessionToken || undefined }
        : undefined,
      // Plain payload signing: S3-compatible stores do not all understand aws-chunked trailers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      // Failures surface in the snapshot status; the SDK's own console warnings add nothing.
      logger: { trace: () => {}, debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
      responseChecksumValidation: 'WHEN_REQUIRED',
      // A store that accepts the connection and then stalls fails the request instead of holding it.
      requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS },
    });
  }

  private key(name: string): string {
    return joinKey(this.opts.pathPrefix, name);
  }

  url(name: string): string {
    const key = this.key(name).split('/').map(encodeURIComponent).join('/');
    if (this.endpointUrl) {
      const base = new URL(this.endpointUrl.href);
      if (this.opts.forcePathStyle) return `${base.protocol}//${base.host}/${this.opts.bucket}/${key}`;
      return `${base.protocol}//${this.opts.bucket}.${base.host}/${key}`;
    }
    const host = `s3.${this.opts.region}.amazonaws.com`;
    return this.opts.forcePathStyle ? `https://${host}/${this.opts.bucket}/${key}` : `https://${this.opts.bucket}.${host}/${key}`;
  }

  private encryption(): Pick<PutObjectCommandInput, 'ServerSideEncryption' | 'SSEKMSKeyId'> {
    if (this.opts.enableKms) return { ServerSideEncryption: 'aws:kms', ...(this.opts.kmsKey ? { SSEKMSKeyId: this.opts.kmsKey } : {}) };
    if (this.opts.serverSideEncryption) return { ServerSideEncryption: 'AES256' };
    return {};
  }

  async put(name: string, open: () => Readable, size: number, signal: AbortSignal): Promise<void> {
    const key = this.key(name);
    const body = open();
    // The SDK does not watch the body for errors: abort the request ourselves, so a failing
    // source ends the upload (and S3 keeps nothing) instead of hanging it.
    const abort = new AbortController();
    let sourceError: Error | undefined;
    body.once('error', (e: Error) => {
      sourceError = e;
      abort.abort(e);
    });
    const onAbort = () => abort.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const upload = new Upload({
      client: this.client,
      // ContentLength: Upload checks the parts it sent add up to the archive's length.
      params: { Bucket: this.opts.bucket, Key: key, Body: body, ContentLength: size, ContentType: 'application/gzip', ...this.encryption() },
      partSize: this.opts.partSize ?? DEFAULT_PART,
      queueSize: PART_QUEUE,
      leavePartsOnError: false,
      abortController: abort,
    });
    try {
      await upload.done();
    } catch (e) {
      this.cleanupAfterFailure(key, upload);
      throw sourceError ?? (signal.aborted ? (signal.reason as Error) : e);
    } finally {
      signal.removeEventListener('abort', onAbort);
      body.destroy();
    }
  }

  /**
   * Best effort, bounded, in the background (close() waits for it): aborts the multipart upload
   * (Upload does too, but only once its parts in flight end) and deletes the key, twice: some
   * S3-compatible stores (s3rver) commit what an aborted PutObject had sent, and may do so after
   * a delete sent at once has already been served.
   */
  private cleanupAfterFailure(key: string, upload: Upload): void {
    const bounded = { abortSignal: AbortSignal.timeout(CLEANUP_TIMEOUT_MS) };
    const del = () => this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: key }), bounded).catch(() => undefined);
    const p = (async () => {
      if (upload.uploadId) {
        await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.opts.bucket, Key: key, UploadId: upload.uploadId }), bounded).catch(() => undefined);
      }
      await del();
      await new Promise((r) => setTimeout(r, LATE_COMMIT_MS));
      await del();
    })();
    this.cleanups.add(p);
    void p.finally(() => this.cleanups.delete(p));
  }

  async list(): Promise<StoredObject[]> {
    const prefix = listPrefix(this.opts.pathPrefix);
    const out: StoredObject[] = [];
    let token: string | undefined;
    do {
      const r = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.opts.bucket, Prefix: prefix, Delimiter: '/', ContinuationToken: token }),
      );
      for (const o of r.Contents ?? []) if (o.Key) out.push({ name: o.Key.slice(prefix.length), size: o.Size ?? 0 });
      token = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (token);
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async get(name: string): Promise<Readable> {
    const r = await this.client.send(new GetObjectCommand({ Bucket: this.opts.bucket, Key: this.key(name) }));
    return r.Body as Readable;
  }

  async delete(name: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: this.key(name) }));
  }

  /** Nothing to clean: an interrupted upload leaves no object behind (failed ones are aborted). */
  async cleanup(): Promise<void> {}

  async close(): Promise<void> {
    await Promise.all(this.cleanups);
    this.client.destroy();
  }
}
