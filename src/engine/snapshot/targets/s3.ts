// The `cloudone-store` target (S3 API, @aws-sdk/client-s3). The archive's length is known before
// its first byte, so it streams into one PutObject with that Content-Length: no part buffering,
// memory flat, and S3 never creates an object from a request whose body was cut short. That
// PutObject goes to a temporary key (`.<name>.partial`) and a server-side CopyObject publishes it
// under the final name: S3-compatible stores such as s3rver write a PutObject under its key as the
// bytes arrive (and keep what an aborted one had sent), so only a copy of a complete object is
// safe to name. Above S3's 5 GiB single-PUT and copy limit the archive goes through a multipart
// upload instead, each part streamed with its exact length, invisible until
// CompleteMultipartUpload. The temporary key is deleted in the background once the copy is done
// (cleanup() and close() wait for it). A failure aborts the request (and the multipart upload),
// and the keys get a best-effort delete: a request the store completed but whose answer was lost
// must not leave an object the status calls failed.

import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type CompletedPart,
  type PutObjectCommandInput,
} from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { REQUEST_TIMEOUT_MS, joinKey, listPrefix, partialName, type ExclusiveCreate, type SnapshotTarget, type StoredObject } from './target';

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
  /** Largest archive sent as one PutObject (default and maximum 5 GiB, S3's limit); larger ones go multipart. */
  singlePutMax?: number;
  /** Part size of a multipart upload (default 5 GiB, at least 5 MiB); parts are streamed, never buffered. */
  partSize?: number;
  /** Socket idle timeout of a request in ms (default 30 s); connect timeout is 10 s. */
  requestTimeoutMs?: number;
}

const CONNECT_TIMEOUT_MS = 10_000;
/** The best-effort delete after a failed put gets this long (the store may be the thing stalled). */
const CLEANUP_TIMEOUT_MS = 5_000;
/** When the cleanup deletes the keys a second time. */
const LATE_COMMIT_MS = 500;

/** S3's limit for one PutObject, one CopyObject and one part. */
const S3_SINGLE_MAX = 5 * 1024 ** 3;
const S3_MAX_PARTS = 10_000;

/**
 * Hands out consecutive slices of `source` of exact lengths, one Readable per slice, without
 * copying: each part of a multipart upload streams its bytes as they are produced.
 */
class Slicer {
  private readonly it: AsyncIterator<Buffer>;
  private rest: Buffer | undefined;

  constructor(source: Readable) {
    this.it = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  }

  slice(bytes: number): Readable {
    return Readable.from(this.take(bytes), { objectMode: false });
  }

  private async *take(bytes: number): AsyncGenerator<Buffer> {
    let left = bytes;
    while (left > 0) {
      let c = this.rest;
      this.rest = undefined;
      if (!c) {
        const r = await this.it.next();
        if (r.done) throw new Error(`the archive ended ${left} bytes short of a part`);
        c = r.value;
      }
      if (c.length > left) {
        this.rest = c.subarray(left);
        c = c.subarray(0, left);
      }
      left -= c.length;
      yield c;
    }
  }
}

export class S3Target implements SnapshotTarget, ExclusiveCreate {
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
      credentials: opts.accessKeyId ? { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey ?? '', sessionToken: opts.sessionToken || undefined } : undefined,
      // Plain payload signing: S3-compatible stores do not all understand aws-chunked trailers. A
      // stream body is sent as UNSIGNED-PAYLOAD, so the SDK never reads it ahead to hash it.
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
    const single = size <= Math.min(this.opts.singlePutMax ?? S3_SINGLE_MAX, S3_SINGLE_MAX);
    const temp = this.key(partialName(name));
    const upload: { id?: string } = {};
    try {
      if (single) await this.putViaCopy(key, temp, body, size, abort.signal);
      else await this.putMultipart(key, body, size, abort.signal, upload);
    } catch (e) {
      this.cleanupAfterFailure(single ? [temp, key] : [key], upload.id);
      throw sourceError ?? (signal.aborted ? (signal.reason as Error) : e);
    } finally {
      signal.removeEventListener('abort', onAbort);
      body.destroy();
    }
  }

  /** One streamed PutObject to `temp`, published under `key` by a server-side copy. */
  private async putViaCopy(key: string, temp: string, body: Readable, size: number, abortSignal: AbortSignal): Promise<void> {
    const { bucket } = this.opts;
    await this.client.send(new PutObjectCommand({ Bucket: bucket, Key: temp, Body: body, ContentLength: size, ContentType: 'application/gzip', ...this.encryption() }), {
      abortSignal,
    });
    const source = `${bucket}/${temp.split('/').map(encodeURIComponent).join('/')}`;
    await this.client.send(new CopyObjectCommand({ Bucket: bucket, Key: key, CopySource: source, ...this.encryption() }), { abortSignal });
    // The snapshot is complete. The temporary key's delete runs while the caller goes on
    // (retention's deletes overlap it); cleanup() and close() wait for it, and a delete that
    // fails now only costs space: retention removes leftover temporary keys.
    this.deleteLater([temp]);
  }

  /** CreateMultipartUpload, parts of exact lengths streamed one after another, then Complete. */
  private async putMultipart(key: string, body: Readable, size: number, abortSignal: AbortSignal, upload: { id?: string }): Promise<void> {
    const { bucket } = this.opts;
    const partSize = Math.min(S3_SINGLE_MAX, Math.max(this.opts.partSize ?? S3_SINGLE_MAX, Math.ceil(size / S3_MAX_PARTS)));
    const created = await this.client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: 'application/gzip', ...this.encryption() }), { abortSignal });
    upload.id = created.UploadId;
    const slicer = new Slicer(body);
    const parts: CompletedPart[] = [];
    for (let at = 0, n = 1; at < size; at += partSize, n++) {
      const len = Math.min(partSize, size - at);
      const r = await this.client.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: upload.id, PartNumber: n, Body: slicer.slice(len), ContentLength: len }), {
        abortSignal,
      });
      parts.push({ PartNumber: n, ETag: r.ETag });
    }
    await this.client.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: upload.id, MultipartUpload: { Parts: parts } }), { abortSignal });
  }

  /**
   * Best effort, bounded, in the background (close() waits for it): aborts the multipart upload
   * and deletes the keys, twice: some S3-compatible stores (s3rver) commit what an aborted
   * PutObject had sent, and may do so after a delete sent at once has already been served.
   */
  private cleanupAfterFailure(keys: string[], uploadId: string | undefined): void {
    const bounded = { abortSignal: AbortSignal.timeout(CLEANUP_TIMEOUT_MS) };
    const key = keys[keys.length - 1];
    const first = uploadId
      ? this.client.send(new AbortMultipartUploadCommand({ Bucket: this.opts.bucket, Key: key, UploadId: uploadId }), bounded).then(
          () => undefined,
          () => undefined,
        )
      : Promise.resolve();
    this.track(first.then(() => this.deleteKeys(keys, true)));
  }

  private deleteLater(keys: string[]): void {
    this.track(this.deleteKeys(keys, false));
  }

  private async deleteKeys(keys: string[], twice: boolean): Promise<void> {
    const del = () =>
      Promise.all(
        keys.map((k) =>
          this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: k }), { abortSignal: AbortSignal.timeout(CLEANUP_TIMEOUT_MS) }).catch(() => undefined),
        ),
      );
    await del();
    if (!twice) return;
    await new Promise((r) => setTimeout(r, LATE_COMMIT_MS));
    await del();
  }

  private track(p: Promise<void>): void {
    this.cleanups.add(p);
    void p.finally(() => this.cleanups.delete(p));
  }

  async list(): Promise<StoredObject[]> {
    const prefix = listPrefix(this.opts.pathPrefix);
    const out: StoredObject[] = [];
    let token: string | undefined;
    do {
      const r = await this.client.send(new ListObjectsV2Command({ Bucket: this.opts.bucket, Prefix: prefix, Delimiter: '/', ContinuationToken: token }));
      for (const o of r.Contents ?? []) if (o.Key) out.push({ name: o.Key.slice(prefix.length), size: o.Size ?? 0 });
      token = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (token);
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** PutObject with If-None-Match: * (S3 conditional writes); 412, or 409 for a racing one, means taken. */
  async createIfAbsent(name: string, body: Buffer): Promise<boolean> {
    try {
      await this.client.send(new PutObjectCommand({ Bucket: this.opts.bucket, Key: this.key(name), Body: body, ContentLength: body.length, IfNoneMatch: '*' }));
      return true;
    } catch (e) {
      const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 412 || status === 409) return false;
      throw e;
    }
  }

  async get(name: string): Promise<Readable> {
    const r = await this.client.send(new GetObjectCommand({ Bucket: this.opts.bucket, Key: this.key(name) }));
    return r.Body as Readable;
  }

  async delete(name: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: this.key(name) }));
  }

  /** The object and the temporary key a failed put of `name` may have left (a stalled store can commit it late). */
  async discard(name: string): Promise<void> {
    await Promise.all([this.delete(name), this.delete(partialName(name))]);
  }

  /**
   * Waits for the deletes started in the background (temporary keys of completed puts, keys of
   * failed ones). Temporary keys an engine crash left are not listed for here (the store may be
   * stalled at start): retention removes them.
   */
  async cleanup(): Promise<void> {
    await Promise.all(this.cleanups);
  }

  async close(): Promise<void> {
    await Promise.all(this.cleanups);
    this.client.destroy();
  }
}
