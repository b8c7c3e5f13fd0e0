// A stack for a server without automated snapshots (Vault Community, OpenBao, or the embedded
// engine in oss edition): the auth mount goes to the server, the snapshot configs to a
// `keyward snapshot-agent` in front of it. The addresses are declared below: `address` (the
// server) and `snapshotAddress` (the agent) win over VAULT_ADDR and KEYWARD_SNAPSHOT_ADDR, which
// are only fallbacks (a different value is a warning). From the deploying environment:
//   KEYWARD_CLOUD_PLUGIN   on OpenBao: the name the GCP auth plugin was registered under

import { App, TerraformStack } from 'cdktf';
import { CloudAuthBackend, CloudAuthRole, KeywardServer, SnapshotAutoConfig, SnapshotStorage, secretFromEnv } from '../../constructs';

const app = new App();
const stack = new TerraformStack(app, 'community');

const server = new KeywardServer(stack, 'server', {
  address: 'http://127.0.0.1:8200',
  snapshotAddress: 'http://127.0.0.1:8300',
  // On OpenBao, e.g. cloudPlugin: 'vault-plugin-auth-gcp'. Default: gcp on Vault and OpenBao, cloud on the engine.
});

const cloud = new CloudAuthBackend(stack, 'cloud', {
  server,
  description: 'workloads of demo-project',
  // No key here: the server's ambient credentials (or add `credentials` from the environment).
  config: { iamAlias: 'unique_id' },
});

CloudAuthRole.iam(stack, 'app', {
  backend: cloud,
  boundServiceAccounts: ['app@demo-project.iam.gserviceaccount.com'],
  tokenPolicies: ['app'],
  tokenTtl: '1h',
});

new SnapshotAutoConfig(stack, 'hourly', {
  server,
  interval: '1h',
  retain: 24,
  pathPrefix: process.env.KEYWARD_SNAPSHOT_DIR ?? '/var/lib/keyward/snapshots',
  storage: SnapshotStorage.local({ maxSpaceBytes: 10 * 1024 ** 3 }),
});

new SnapshotAutoConfig(stack, 'offsite-daily', {
  server,
  interval: '24h',
  retain: 7,
  pathPrefix: 'vault/prod',
  storage: SnapshotStorage.cloudOne({
    bucket: 'backups',
    region: 'eu-west-1',
    accessKeyId: 'AKIDEXAMPLE-OFFSITE',
    secretAccessKey: secretFromEnv('S3_SECRET_ACCESS_KEY'),
  }),
});

app.synth();
