// Import code generation as pure functions: defaults omitted, secrets as sensitive variables,
// props named like the constructs' (camelCase), one statement per object.

import { finishRole, liveConfigFields, liveSnapshotFields, mountFields } from '../../../src/reconcile/canonical';
import { mountCode, snapshotsCode } from '../../../src/reconcile/import-code';

test('a mount with config and roles', () => {
  const code = mountCode(
    {
      path: 'team/cloud',
      type: 'cloud',
      description: 'adopted',
      mount: mountFields('cloud', { description: 'adopted', local: true, default_lease_ttl: 3600 }),
      config: liveConfigFields({ iam_alias: 'unique_id', custom_endpoint: { iam: 'https://iam.internal' }, rotation_period: 86400 }),
      credentialsSet: true,
      roles: [
        { name: 'web', fields: finishRole({ type: 'iam', bound_service_accounts: ['a@p'], token_ttl: 3600 }, 'iam') },
        { name: 'batch', fields: finishRole({ type: 'vm', bound_zones: ['z1'], bound_labels: { env: 'prod' } }, 'vm') },
      ],
    },
    { module: 'keyward', stackName: 'adopted' },
  );
  expect(code).toContain(`import { App, TerraformStack, TerraformVariable } from 'cdktf';`);
  expect(code).toContain(`import { CloudAuthBackend, CloudAuthRole, KeywardServer } from "keyward";`);
  expect(code).toContain(`const team_cloud_credentials = new TerraformVariable(stack, "team_cloud_credentials", { type: 'string', sensitive: true`);
  expect(code).toContain(
    `const backend_team_cloud = new CloudAuthBackend(stack, "team-cloud", { server, path: "team/cloud", description: "adopted", local: true, defaultLeaseTtl: 3600, config: { credentials: team_cloud_credentials.stringValue, iamAlias: "unique_id", customEndpoints: {iam: "https://iam.internal"}, rotationPeriod: 86400 } });`,
  );
  // The first deploy imports the mount (a create over it is refused).
  expect(code).toContain(`backend_team_cloud.importFrom("team/cloud");`);
  expect(code).toContain(`CloudAuthRole.iam(stack, "team-cloud-web", { backend: backend_team_cloud, roleName: "web", boundServiceAccounts: ["a@p"], tokenTtl: 3600 });`);
  expect(code).toContain(`CloudAuthRole.vm(stack, "team-cloud-batch", { backend: backend_team_cloud, roleName: "batch", boundZones: ["z1"], boundLabels: {env: "prod"} });`);
  expect(code).not.toMatch(/maxJwtExp|tokenType|allowVmInference/);
});

test('snapshot configs: storage factories, required secrets as variables, defaults omitted', () => {
  const code = snapshotsCode([
    { name: 'hourly', fields: liveSnapshotFields({ storage_type: 'local', interval: 3600, retain: 1, path_prefix: '/s', file_prefix: 'vault-snapshot', local_max_space: 100 }) },
    {
      name: 'az',
      fields: liveSnapshotFields({
        storage_type: 'cloudthree-store',
        interval: 60,
        retain: 2,
        path_prefix: 'p/',
        file_prefix: 'x',
        cloudthree_container_name: 'c',
        cloudthree_account_name: 'acct',
      }),
    },
  ]);
  expect(code).toContain(
    `new SnapshotAutoConfig(stack, "snapshot-hourly", { server, configName: "hourly", interval: 3600, pathPrefix: "/s", storage: SnapshotStorage.local({ maxSpaceBytes: 100 }) }).importFrom("hourly");`,
  );
  expect(code).toContain(`const az_cloudthree_account_key = new TerraformVariable(stack, "az_cloudthree_account_key"`);
  expect(code).toContain(
    `new SnapshotAutoConfig(stack, "snapshot-az", { server, configName: "az", interval: 60, retain: 2, pathPrefix: "p/", filePrefix: "x", storage: SnapshotStorage.cloudThree({ containerName: "c", accountName: "acct", accountKey: az_cloudthree_account_key.stringValue }) }).importFrom("az");`,
  );
});

test('the constructs entry is the default module (the package root does not export them)', () => {
  const code = snapshotsCode([{ name: 'hourly', fields: liveSnapshotFields({ storage_type: 'local', interval: 3600, path_prefix: '/s', local_max_space: 100 }) }]);
  expect(code).toContain(`from "keyward/constructs";`);
});

test('in a cdktn app the generated code imports App and TerraformStack from cdktn', () => {
  const code = snapshotsCode([], { cdkLibrary: 'cdktn' });
  expect(code).toContain(`import { App, TerraformStack } from 'cdktn';`);
  expect(code).not.toContain(`from 'cdktf'`);
});
