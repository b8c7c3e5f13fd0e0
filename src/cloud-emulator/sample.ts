// The world `keyward cloud-emulator` serves when no --description is given: one organization with a
// folder, two projects, a few service accounts, two instances and an instance group, plus a workload
// identity pool trusting an engine at its default address (keyless auth, see docs/cloud-emulator.md).

/** The plugin identity issuer of `keyward server --dev` at its default address. */
export const SAMPLE_ENGINE_ISSUER = 'http://127.0.0.1:8200/v1/identity/oidc/plugins';

export const sampleDescription = {
  organizations: [{ id: '100', displayName: 'example.org' }],
  folders: [{ id: '200', parent: 'organizations/100' }],
  projects: [
    { id: 'demo-project', number: '1001', parent: 'folders/200' },
    { id: 'ops-project', number: '1002', parent: 'organizations/100' },
  ],
  serviceAccounts: [
    {
      email: 'keyward@ops-project.iam.gserviceaccount.com',
      uniqueId: '110000000000000000000',
      project: 'ops-project',
      // Any identity the pool federates may impersonate the engine's account.
      bindings: [{ role: 'roles/iam.workloadIdentityUser', members: ['principalSet://iam.googleapis.com/projects/1002/locations/global/workloadIdentityPools/keyward-pool/*'] }],
    },
    { email: 'app@demo-project.iam.gserviceaccount.com', uniqueId: '110000000000000000001', project: 'demo-project' },
    { email: 'vm@demo-project.iam.gserviceaccount.com', uniqueId: '110000000000000000002', project: 'demo-project' },
  ],
  instances: [
    { name: 'web-1', id: '5001', project: 'demo-project', zone: 'us-east1-b', labels: { env: 'dev' }, serviceAccount: 'vm@demo-project.iam.gserviceaccount.com' },
    { name: 'web-2', id: '5002', project: 'demo-project', zone: 'us-west1-a', labels: { env: 'prod' }, serviceAccount: 'vm@demo-project.iam.gserviceaccount.com' },
  ],
  instanceGroups: [{ name: 'web', project: 'demo-project', zone: 'us-east1-b', instances: ['web-1'] }],
  workloadIdentityPools: [
    {
      project: 'ops-project',
      id: 'keyward-pool',
      providers: [{ id: 'local-engine', issuerUri: SAMPLE_ENGINE_ISSUER, attributeCondition: 'assertion.sub.startsWith("plugin-identity:")' }],
    },
  ],
};

/** identity_token_audience for the sample pool's provider. */
export const SAMPLE_KEYLESS_AUDIENCE = 'https://iam.googleapis.com/projects/1002/locations/global/workloadIdentityPools/keyward-pool/providers/local-engine';
