// Runs the one target conformance suite against all four targets: a temp directory, S3 through
// s3rver, Azure Blob through azurite, GCS through our JSON-API emulator (test/support/gcs-emulator).

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AzureTarget } from '../../../src/engine/snapshot/targets/azure';
import { GcsTarget } from '../../../src/engine/snapshot/targets/gcs';
import { LocalTarget } from '../../../src/engine/snapshot/targets/local';
import { S3Target } from '../../../src/engine/snapshot/targets/s3';
import { startAzurite, startGcs, startS3, type RunningStore } from '../../support/object-stores';
import { targetConformance } from '../../unit/engine/snapshot/target-conformance';

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
