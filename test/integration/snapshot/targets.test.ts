// Runs the one target conformance suite against all four targets: a temp directory, S3 through
// s3rver, Azure Blob through azurite, GCS through our JSON-API emulator (test/support/gcs-emulator).

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { AzureTarget } from '../../../src/engine/snapshot/targets/azure';
import { GcsTarget } from '../../../src/engine/snapshot/targets/gcs';
import { LocalTarget } from '../../../src/engine/snapshot/targets/local';
import { S3Target } from '../../../src/engine/snapshot/targets/s3';
import { startAzurite, startGcs, startS3, type RunningStore } from '../../support/object-stores';
import { targetConformance } from '../../unit/engine/snapshot/target-conformance';

/** A signal that never aborts (puts that are not meant to be cancelled). */
const live = new AbortController().signal;

let dir = '';
let s3: RunningStore;
let gcs: RunningStore;
let azure: RunningStore;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kw-local-target-'));
  [s3, gcs, azure] = await Promise.all([startS3(), startGcs(), startAzurite()]);
});

afterAll(async () => {
  await Promise.all([s3?.close(), gcs?.close(), azure?.close()]);
  await rm(dir, { recursive: true, force: true });
});

targetConformance('local', () => ({
  make: (prefix) => new LocalTarget({ dir: join(dir, prefix), filePrefix: 'vault-snapshot', maxSpace: 1024 ** 3 }),
  urlPattern: /^file:\/\/\/.+\.snap$/,
}));

targetConformance('cloudone-store (s3rver)', () => ({
  make: (prefix) => {
    const f = s3.fields;
    return new S3Target({
      bucket: String(f.cloudone_bucket),
      region: String(f.cloudone_region),
      pathPrefix: prefix,
      accessKeyId: String(f.cloudone_access_key_id),
      secretAccessKey: String(f.cloudone_secret_access_key),
      endpoint: String(f.cloudone_endpoint),
      disableTls: true,
      forcePathStyle: true,
      serverSideEncryption: true,
    });
  },
  urlPattern: /^http:\/\/127\.0\.0\.1:\d+\/snapshots\/conf-.+\.snap$/,
}));

targetConformance('cloudone-store multipart (s3rver)', () => ({
  make: (prefix) =>
    new S3Target({
      bucket: String(s3.fields.cloudone_bucket),
      region: 'us-east-1',
      pathPrefix: prefix,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      endpoint: String(s3.fields.cloudone_endpoint),
      disableTls: true,
      forcePathStyle: true,
      // The smallest part S3 allows: the 9 and 12 MiB conformance archives go through
      // CreateMultipartUpload / UploadPart / CompleteMultipartUpload.
      partSize: 5 * 1024 * 1024,
    }),
  urlPattern: /^http:\/\/127\.0\.0\.1:\d+\/snapshots\/conf-.+\.snap$/,
}));

targetConformance('cloudtwo-store (GCS emulator)', () => ({
  make: (prefix) =>
    new GcsTarget({ bucket: String(gcs.fields.cloudtwo_bucket), pathPrefix: prefix, endpoint: String(gcs.fields.cloudtwo_endpoint), disableTls: true }),
  urlPattern: /^http:\/\/127\.0\.0\.1:\d+\/snapshots\/conf-.+\.snap$/,
}));

targetConformance('cloudthree-store (azurite)', () => ({
  make: (prefix) =>
    new AzureTarget({
      container: String(azure.fields.cloudthree_container_name),
      accountName: String(azure.fields.cloudthree_account_name),
      accountKey: String(azure.fields.cloudthree_account_key),
      endpoint: String(azure.fields.cloudthree_endpoint),
      pathPrefix: prefix,
    }),
  urlPattern: /^http:\/\/127\.0\.0\.1:\d+\/devstoreaccount1\/snapshots\/conf-.+\.snap$/,
}));

describe('cloudone-store specifics (s3rver)', () => {
  const opts = () => ({
    bucket: String(s3.fields.cloudone_bucket),
    region: 'us-east-1',
    pathPrefix: `specific-${Date.now()}`,
    endpoint: String(s3.fields.cloudone_endpoint),
    disableTls: true,
    forcePathStyle: true,
  });

  it("uses the SDK's default credential chain (environment) when keys are omitted", async () => {
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    try {
      const t = new S3Target(opts());
      await t.put('vault-snapshot-1.snap', () => Readable.from([Buffer.from('env creds')]), 9, live);
      expect((await t.list()).map((o) => o.name)).toEqual(['vault-snapshot-1.snap']);
      await t.close();
    } finally {
      for (const [k, v] of [['AWS_ACCESS_KEY_ID', saved.id], ['AWS_SECRET_ACCESS_KEY', saved.secret]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('deletes the key after a failed put (a store that committed but whose answer was lost)', async () => {
    const o = { ...opts(), accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
    const t = new S3Target(o);
    // The object a completed-but-unanswered PutObject would have left behind.
    await t.put('vault-snapshot-7.snap', () => Readable.from([Buffer.from('committed')]), 9, live);
    const failing = new Readable({ read() {} });
    failing.push(Buffer.alloc(1000));
    setImmediate(() => failing.destroy(new Error('source failed')));
    await expect(t.put('vault-snapshot-7.snap', () => failing, 5000, live)).rejects.toThrow();
    await t.close(); // waits for the best-effort delete
    const check = new S3Target(o);
    expect(await check.list()).toEqual([]);
    expect((await check.list()).map((o) => o.name)).not.toContain('vault-snapshot-7.snap');
    await check.close();
  });

  it('fails clearly with unknown static keys', async () => {
    const t = new S3Target({ ...opts(), accessKeyId: 'NOT-A-KEY', secretAccessKey: 'wrong' });
    await expect(t.put('vault-snapshot-1.snap', () => Readable.from([Buffer.from('x')]), 1, live)).rejects.toMatchObject({ name: 'InvalidAccessKeyId' });
    await t.close();
  });

  it('virtual-host and path-style URLs, default AWS host without an endpoint', () => {
    const base = { bucket: 'bk', region: 'eu-west-1', pathPrefix: 'prod/raft' };
    expect(new S3Target(base).url('n.snap')).toBe('https://bk.s3.eu-west-1.amazonaws.com/prod/raft/n.snap');
    expect(new S3Target({ ...base, endpoint: 'minio:9000', disableTls: true, forcePathStyle: true }).url('n.snap')).toBe('http://minio:9000/bk/prod/raft/n.snap');
    expect(new S3Target({ ...base, endpoint: 'minio:9000' }).url('n.snap')).toBe('https://bk.minio:9000/prod/raft/n.snap');
  });
});
