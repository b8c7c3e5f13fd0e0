// Runs the one target conformance suite against all four targets: a temp directory, S3 through
// s3rver, Azure Blob through azurite, GCS through our JSON-API emulator (test/support/gcs-emulator).

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { AzureTarget } from '../../../src/engine/snapshot/targets/azure';
import { GcsTarget } from '../../../src/engine/snapshot/targets/gcs';
import { LocalTarget } from '../../../src/engine/snapshot/targets/local';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { S3Target } from '../../../src/engine/snapshot/targets/s3';
import { partialName } from '../../../src/engine/snapshot/targets/target';
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
      // Stand-ins for S3's 5 GiB limits, at the smallest part S3 allows: the 9 and 12 MiB
      // conformance archives go through CreateMultipartUpload / UploadPart (streamed parts of
      // exact lengths) / CompleteMultipartUpload.
      singlePutMax: 5 * 1024 * 1024,
      partSize: 5 * 1024 * 1024,
    }),
  urlPattern: /^http:\/\/127\.0\.0\.1:\d+\/snapshots\/conf-.+\.snap$/,
}));

targetConformance('cloudtwo-store (GCS emulator)', () => ({
  make: (prefix) => new GcsTarget({ bucket: String(gcs.fields.cloudtwo_bucket), pathPrefix: prefix, endpoint: String(gcs.fields.cloudtwo_endpoint), disableTls: true }),
  urlPattern: /^http:\/\/127\.0\.0\.1:\d+\/snapshots\/conf-.+\.snap$/,
}));

targetConformance('cloudthree-store (azurite)', () => ({
  make: (prefix) =>
    new AzureTarget({
      container: String(azure.fields.cloudthree_container_name),
      accountName: String(azure.fields.cloudthree_account_name),
      credential: { accountKey: String(azure.fields.cloudthree_account_key) },
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
      await t.cleanup(); // the temporary key's delete runs in the background
      expect((await t.list()).map((o) => o.name)).toEqual(['vault-snapshot-1.snap']);
      await t.close();
    } finally {
      for (const [k, v] of [
        ['AWS_ACCESS_KEY_ID', saved.id],
        ['AWS_SECRET_ACCESS_KEY', saved.secret],
      ] as const) {
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

  it('s3rver shows a streamed PutObject under its key before it ends: the target publishes by copy', async () => {
    const o = { ...opts(), accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
    const raw = new S3Client({
      region: o.region,
      endpoint: `http://${o.endpoint}`,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      logger: { trace: () => {}, debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    });
    const t = new S3Target(o);
    // A body that sends 300 kB of its declared 600 kB, then stalls until aborted.
    const stalled = () => {
      const r = new Readable({ read() {} });
      r.push(Buffer.alloc(300_000));
      return r;
    };
    const abort = new AbortController();
    const direct = raw.send(new PutObjectCommand({ Bucket: o.bucket, Key: `${o.pathPrefix}/direct.snap`, Body: stalled(), ContentLength: 600_000 }), { abortSignal: abort.signal });
    const viaTarget = t.put('vault-snapshot-9.snap', stalled, 600_000, abort.signal);
    await new Promise((r) => setTimeout(r, 500));
    const names = (await t.list()).map((x) => x.name);
    // The store exposes what a single PUT has received so far, under the key it was sent to...
    expect(names).toContain('direct.snap');
    // ...so the target's PUT goes to a temporary key, never the final name.
    expect(names).toContain(partialName('vault-snapshot-9.snap'));
    expect(names).not.toContain('vault-snapshot-9.snap');
    abort.abort(new Error('deadline'));
    await expect(direct).rejects.toThrow();
    await expect(viaTarget).rejects.toThrow('deadline');
    await t.cleanup(); // the failed put's own best-effort deletes
    await t.delete('direct.snap');
    expect(await t.list()).toEqual([]);
    await t.close();
    raw.destroy();
  });

  it('discard removes the final and the temporary key a failed put may have left', async () => {
    const t = new S3Target({ ...opts(), accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' });
    for (const n of ['vault-snapshot-11.snap', partialName('vault-snapshot-11.snap')]) await t.put(n, () => Readable.from([Buffer.from('x')]), 1, live);
    await t.cleanup();
    expect((await t.list()).length).toBe(2);
    await t.discard('vault-snapshot-11.snap');
    expect(await t.list()).toEqual([]);
    await t.close();
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
