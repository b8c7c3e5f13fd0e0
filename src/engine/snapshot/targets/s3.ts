// The `cloudone-store` target (S3 API, @aws-sdk/client-s3). S3 has no rename, but a PutObject with
// a known Content-Length is atomic: the key appears only when the whole body has arrived, and an
// aborted upload leaves nothing. The archive is already a complete local scratch file, so one
// PutObject from it is the "temporary name then publish" step (objects over 5 GiB would need
// multipart, whose parts also stay invisible until CompleteMultipartUpload).

import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, type PutObjectCommandInput } from '@aws-sdk/client-s3';
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
}

const MAX_SINGLE_PUT = 5 * 1024 ** 3;

export class S3Target implements SnapshotTarget {
  readonly storageType = 'cloudone-store' as const;
  private readonly client: S3Client;
  private readonly endpointUrl?: URL;

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

  async put(name: string, open: () => Readable, size: number): Promise<void> {
    if (size > MAX_SINGLE_PUT) throw new Error(`snapshot of ${size} bytes exceeds the 5 GiB single-upload limit of cloudone-store`);
    const input: PutObjectCommandInput = {
      Bucket: this.opts.bucket,
      Key: this.key(name),
      Body: open(),
      ContentLength: size,
      ContentType: 'application/gzip',
    };
    if (this.opts.enableKms) {
      input.ServerSideEncryption = 'aws:kms';
      if (this.opts.kmsKey) input.SSEKMSKeyId = this.opts.kmsKey;
    } else if (this.opts.serverSideEncryption) {
      input.ServerSideEncryption = 'AES256';
    }
    const body = input.Body as Readable;
    // The SDK does not watch the body for errors: abort the request ourselves, so a failing
    // source ends the upload (and S3 keeps nothing) instead of hanging it.
    const abort = new AbortController();
    let sourceError: Error | undefined;
    body.once('error', (e: Error) => {
      sourceError = e;
      abort.abort(e);
    });
    try {
      await this.client.send(new PutObjectCommand(input), { abortSignal: abort.signal });
    } catch (e) {
      throw sourceError ?? e;
    } finally {
      body.destroy();
    }
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

  /** Nothing to clean: an interrupted PutObject leaves no object behind. */
  async cleanup(): Promise<void> {}

  async close(): Promise<void> {
    this.client.destroy();
  }
}
