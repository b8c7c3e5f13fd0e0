// The basic example: a cloud auth mount on the embedded engine, configured against the cloud
// emulator's identities, with one iam role, one vm role and an hourly local snapshot config; and a
// second, keyless mount (workload identity federation: no key anywhere) with one iam role.

import { App, TerraformStack } from 'cdktf';
import { CloudAuthBackend, CloudAuthRole, KeywardServer, SnapshotAutoConfig, SnapshotStorage, secretFromEnv } from '../../constructs';

/** The emulated identity provider (`keyward cloud-emulator`). */
const emulator = process.env.KEYWARD_CLOUD_EMULATOR ?? 'http://127.0.0.1:8290';

const app = new App();
const stack = new TerraformStack(app, 'basic');

// No `address`: VAULT_ADDR of the deploying shell selects the server (default http://127.0.0.1:8200).
// A declared address that differs from VAULT_ADDR would be refused (docs/servers.md). The token is never a prop.
const server = new KeywardServer(stack, 'server');

const cloud = new CloudAuthBackend(stack, 'cloud', {
  server,
  description: 'workloads of demo-project',
  config: {
    // A service-account key (from `keyward cloud-emulator key-file`), passed by environment only.
    credentials: secretFromEnv('KEYWARD_CLOUD_CREDENTIALS'),
    iamAlias: 'unique_id',
    customEndpoints: { api: emulator, iam: emulator, crm: emulator, compute: emulator },
  },
});

CloudAuthRole.iam(stack, 'app', {
  backend: cloud,
  boundServiceAccounts: ['app@demo-project.iam.gserviceaccount.com'],
  boundProjects: ['demo-project'],
  tokenPolicies: ['app'],
  tokenTtl: '1h',
  tokenMaxTtl: '4h',
  maxJwtExp: '15m',
});

CloudAuthRole.vm(stack, 'web', {
  backend: cloud,
  boundZones: ['us-east1-b'],
  boundLabels: { env: 'dev' },
  tokenPolicies: ['web'],
  tokenTtl: '30m',
});

// Keyless: the engine signs a plugin identity token for this mount, the emulator's Security Token
// Service exchanges it (its sample workload identity pool trusts the engine on 127.0.0.1:8200) and
// IAM Credentials lets the federated principal impersonate the engine's service account.
const keyless = new CloudAuthBackend(stack, 'keyless', {
  server,
  path: 'keyless',
  description: 'workload identity federation, no key',
  config: {
    serviceAccountEmail: 'keyward@ops-project.iam.gserviceaccount.com',
    identityTokenAudience: 'https://iam.googleapis.com/projects/1002/locations/global/workloadIdentityPools/keyward-pool/providers/local-engine',
    // sts and iamcredentials are keyward's engine's own keys (Vault always calls Google's).
    customEndpoints: { api: emulator, iam: emulator, crm: emulator, compute: emulator, sts: emulator, iamcredentials: emulator },
  },
});

CloudAuthRole.iam(stack, 'keyless-app', {
  backend: keyless,
  roleName: 'app',
  boundServiceAccounts: ['app@demo-project.iam.gserviceaccount.com'],
  tokenPolicies: ['app'],
});

new SnapshotAutoConfig(stack, 'hourly', {
  server,
  interval: '1h',
  retain: 24,
  pathPrefix: process.env.KEYWARD_SNAPSHOT_DIR ?? '/tmp/keyward-snapshots',
  storage: SnapshotStorage.local({ maxSpaceBytes: 1024 * 1024 * 1024 }),
});

app.synth();
