// The `cloudthree-store` target (Azure Blob, @azure/storage-blob; an account key, or a token
// credential from @azure/identity for the managed and environment auth modes). The archive's
// length is known before its first byte, so up to SINGLE_SHOT_MAX it streams into one Put Blob,
// which creates the blob only when the whole body has arrived. Larger archives go through
// uploadStream, which stages blocks and commits the block list last; until that commit the blob
// does not exist under its name, and uncommitted blocks of an interrupted upload are discarded by
// the service.

import type { TokenCredential } from '@azure/identity';
import { BlobServiceClient, StorageSharedKeyCredential, type ContainerClient } from '@azure/storage-blob';
import { Readable } from 'node:stream';
import { BLOB_ENVIRONMENTS } from '../../../schema/snapshot-validate';
import { joinKey, listPrefix, type ExclusiveCreate, type SnapshotTarget, type StoredObject } from './target';

export interface AzureTargetOptions {
  container: string;
  /** Absent with a token credential and an endpoint (the environment mode needs no account name). */
  accountName?: string;
  /** The account key (auth mode shared), or a token credential (managed, environment). */
  credential: { accountKey: string } | TokenCredential;
  pathPrefix: string;
  /** AZUREPUBLICCLOUD (default), AZURECHINACLOUD, AZUREGERMANCLOUD, AZUREUSGOVERNMENTCLOUD. */
  blobEnvironment?: string;
  /** Full service URL, e.g. http://127.0.0.1:10000/devstoreaccount1 (Azurite). */
  endpoint?: string;
  /** Timeout of one try of a request in ms (default 30 s). */
  tryTimeoutMs?: number;
}

const BLOCK_SIZE = 8 * 1024 * 1024;
/** The SDK's own single-shot limit for uploadData (the service allows more). */
const SINGLE_SHOT_MAX = 256 * 1024 * 1024;
const TRY_TIMEOUT_MS = 30_000;

export class AzureTarget implements SnapshotTarget, ExclusiveCreate {
  readonly storageType = 'cloudthree-store' as const;
  private readonly container: ContainerClient;

  constructor(private readonly opts: AzureTargetOptions) {
    const suffix = BLOB_ENVIRONMENTS[(opts.blobEnvironment || 'AZUREPUBLICCLOUD').toUpperCase()] ?? BLOB_ENVIRONMENTS.AZUREPUBLICCLOUD;
    if (!opts.endpoint && !opts.accountName) throw new Error('the storage account is unknown: set cloudthree_account_name or cloudthree_endpoint');
    const serviceUrl = opts.endpoint ? opts.endpoint.replace(/\/$/, '') : `https://${opts.accountName}.${suffix}`;
    const credential = 'accountKey' in opts.credential ? new StorageSharedKeyCredential(opts.accountName ?? '', opts.credential.accountKey) : opts.credential;
    const service = new BlobServiceClient(serviceUrl, credential, {
      // Each try of a request times out (a stalled store); the attempt's signal aborts the rest.
      retryOptions: { maxTries: 3, tryTimeoutInMs: opts.tryTimeoutMs ?? TRY_TIMEOUT_MS },
    });
    this.container = service.getContainerClient(opts.container);
  }

  private key(name: string): string {
    return joinKey(this.opts.pathPrefix, name);
  }

  url(name: string): string {
    return this.container.getBlockBlobClient(this.key(name)).url;
  }

  async put(name: string, open: () => Readable, size: number, signal: AbortSignal): Promise<void> {
    const blob = this.container.getBlockBlobClient(this.key(name));
    const source = open();
    // The SDK neither watches a streamed body for errors nor stops reading it on abort: a failing
    // source aborts the request, and an abort ends the source.
    const abort = new AbortController();
    let failure: Error | undefined;
    const fail = (e: Error) => {
      failure ??= e;
      abort.abort(e);
      source.destroy();
    };
    source.once('error', fail);
    const onAbort = () => fail(signal.reason as Error);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const options = { blobHTTPHeaders: { blobContentType: 'application/gzip' }, abortSignal: abort.signal };
    try {
      if (size <= SINGLE_SHOT_MAX) {
        let opened = false;
        const body = () => {
          if (!opened) return ((opened = true), source);
          // A retry of the request cannot replay a body produced once: it fails the put instead.
          fail(new Error('the archive stream cannot be replayed for a retry'));
          return new Readable({ read() {} });
        };
        await blob.upload(body, size, options);
      } else {
        // Memory: at most BLOCK_SIZE x 2 buffers in flight, whatever the archive size.
        await blob.uploadStream(source, BLOCK_SIZE, 2, options);
      }
    } catch (e) {
      throw failure ?? e;
    } finally {
      signal.removeEventListener('abort', onAbort);
      source.destroy();
    }
  }

  async list(): Promise<StoredObject[]> {
    const prefix = listPrefix(this.opts.pathPrefix);
    const out: StoredObject[] = [];
    for await (const item of this.container.listBlobsByHierarchy('/', { prefix })) {
      if (item.kind === 'blob') out.push({ name: item.name.slice(prefix.length), size: item.properties.contentLength ?? 0 });
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Put Blob with If-None-Match: *; 409 BlobAlreadyExists (or 412) means taken. */
  async createIfAbsent(name: string, body: Buffer): Promise<boolean> {
    try {
      await this.container.getBlockBlobClient(this.key(name)).upload(body, body.length, { conditions: { ifNoneMatch: '*' } });
      return true;
    } catch (e) {
      const status = (e as { statusCode?: number }).statusCode;
      if (status === 409 || status === 412) return false;
      throw e;
    }
  }

  async get(name: string): Promise<Readable> {
    const r = await this.container.getBlockBlobClient(this.key(name)).download();
    return r.readableStreamBody as Readable;
  }

  async delete(name: string): Promise<void> {
    await this.container.getBlockBlobClient(this.key(name)).deleteIfExists();
  }

  /** A failed put leaves at most the blob itself (a Put Blob the store committed late). */
  async discard(name: string): Promise<void> {
    await this.delete(name);
  }

  /** Nothing to clean: uncommitted blocks never form a blob and the service drops them. */
  async cleanup(): Promise<void> {}

  async close(): Promise<void> {}
}
