// Automated snapshot configurations for each storage type. Secrets come from the environment of
// the deploy (S3_SECRET_ACCESS_KEY, GCS_SERVICE_ACCOUNT_KEY) or a sensitive variable (azure_account_key).

import { App, TerraformStack, TerraformVariable } from 'cdktf';
import { KeywardServer, SnapshotAutoConfig, SnapshotStorage, secretFromEnv } from '../../constructs';

const app = new App();
const stack = new TerraformStack(app, 'snapshots');
// No `address`: VAULT_ADDR selects the server (a declared address would win over it).
const server = new KeywardServer(stack, 'server');

new SnapshotAutoConfig(stack, 'local-hourly', {
  server,
  interval: '1h',
  retain: 24,
  pathPrefix: '/var/lib/keyward/snapshots',
  storage: SnapshotStorage.local({ maxSpaceBytes: 10 * 1024 ** 3 }),
});

new SnapshotAutoConfig(stack, 's3-daily', {
  server,
  interval: '24h',
  retain: 7,
  pathPrefix: 'vault/prod',
  storage: SnapshotStorage.cloudOne({
    bucket: 'backups',
    region: 'eu-west-1',
    accessKeyId: 'AKIAEXAMPLE',
    // secretFromEnv: an unset variable is an error naming it (or, in plan-only mode, a secret taken as unchanged).
    secretAccessKey: secretFromEnv('S3_SECRET_ACCESS_KEY'),
    serverSideEncryption: true,
  }),
});

new SnapshotAutoConfig(stack, 'gcs-daily', {
  server,
  interval: 86400,
  retain: 7,
  pathPrefix: 'vault/prod/', // cloudTwo needs the trailing "/"
  // Optional: without the variable the server's ambient credentials are used.
  storage: SnapshotStorage.cloudTwo({ bucket: 'backups', serviceAccountKey: process.env.GCS_SERVICE_ACCOUNT_KEY ? secretFromEnv('GCS_SERVICE_ACCOUNT_KEY') : undefined }),
});

const azureKey = new TerraformVariable(stack, 'azure_account_key', { type: 'string', sensitive: true });
new SnapshotAutoConfig(stack, 'azure-weekly', {
  server,
  interval: '168h',
  retain: 4,
  pathPrefix: 'vault/prod/', // cloudThree needs the trailing "/"
  filePrefix: 'weekly',
  storage: SnapshotStorage.cloudThree({ containerName: 'backups', accountName: 'examplestorage', accountKey: azureKey.stringValue }),
});

app.synth();
