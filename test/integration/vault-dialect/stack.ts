// The stack the vault-dialect tests apply: every kind of object, both role types, all four storage
// types with their secrets, values Vault normalizes (a host /32, durations as strings).

import { VaultClient } from '../../../src/client/vault-client';
import type { ManifestInput } from '../../../src/schema/manifest';
import { CONTRACT_TOKEN } from '../../support/vault-contract/server';
import { iamRole, manifest, serviceAccountKey } from '../reconcile/helpers';

export const SECRETS = {
  GCP_CREDS: serviceAccountKey('key-one'),
  S3_SECRET: 'S3-SECRET-do-not-print-0001',
  S3_SESSION: 'S3-SESSION-do-not-print-0002',
  GCS_KEY: JSON.stringify({ type: 'service_account', private_key: 'GCS-KEY-do-not-print-0003', client_email: 'snap@p.iam.gserviceaccount.com' }),
  AZ_KEY: 'AZURE-KEY-do-not-print-0004',
};

/** Searches text for any secret value (the whole value, and the telling fragments). */
export function leakedSecrets(text: string): string[] {
  const needles = [...Object.values(SECRETS), 'do-not-print', 'BEGIN PRIVATE KEY'];
  return needles.filter((n) => text.includes(n));
}

export function vaultClient(url: string, dialect?: 'vault' | 'keyward'): VaultClient {
  return new VaultClient({ address: url, token: CONTRACT_TOKEN, dialect, retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });
}

export function stack(localDir: string, over: { vmAlias?: 'role_id' | 'instance_id'; webTtl?: string } = {}): ManifestInput {
  const ref = (env: string) => ({ secretRef: { env } });
  return manifest({
    authBackends: [
      {
        path: 'cloud',
        type: 'cloud',
        description: 'workloads on Google Cloud',
        config: {
          credentials: ref('GCP_CREDS'),
          iam_alias: 'unique_id',
          vm_alias: over.vmAlias ?? 'instance_id',
          vm_metadata: ['zone', 'instance_id'],
          custom_endpoint: { iam: 'https://iam.internal:8443' },
        },
        roles: [
          iamRole('web', { allow_vm_inference: false, max_jwt_exp: '10m', token_ttl: over.webTtl ?? '1h', token_bound_cidrs: ['10.0.0.9/32', '10.1.0.0/16'] }),
          { name: 'batch', type: 'vm', bound_zones: ['europe-west1-b'], bound_labels: { env: 'prod', tier: 'batch' }, token_type: 'service', add_group_aliases: true },
        ],
      },
    ],
    snapshotConfigs: [
      { name: 'hourly', storage_type: 'local', interval: '1h', retain: 3, path_prefix: localDir, local_max_space: 10_000_000 },
      {
        name: 'offsite',
        storage_type: 'cloudone-store',
        interval: 86400,
        path_prefix: 'raft/',
        cloudone_bucket: 'backups',
        cloudone_region: 'eu-west-1',
        cloudone_access_key_id: 'AKIAEXAMPLE',
        cloudone_secret_access_key: ref('S3_SECRET'),
        cloudone_session_token: ref('S3_SESSION'),
        cloudone_force_path_style: true,
      },
      { name: 'gcs', storage_type: 'cloudtwo-store', interval: '12h', path_prefix: 'raft/', cloudtwo_bucket: 'gcs-backups', cloudtwo_service_account_key: ref('GCS_KEY') },
      {
        name: 'blobs',
        storage_type: 'cloudthree-store',
        interval: '6h',
        path_prefix: 'raft/',
        file_prefix: 'prod',
        cloudthree_container_name: 'snapshots',
        cloudthree_account_name: 'keyward',
        cloudthree_account_key: ref('AZ_KEY'),
        cloudthree_blob_environment: 'AZUREPUBLICCLOUD',
      },
    ],
  });
}
