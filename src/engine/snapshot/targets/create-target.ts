// Builds the target a stored configuration names: the only place that maps wire fields
// (cloudone_*, cloudtwo_*, cloudthree_*, local_max_space) onto target options.

import { DefaultAzureCredential, ManagedIdentityCredential, type TokenCredential } from '@azure/identity';
import type { SnapshotConfig } from '../../../schema/snapshot-config';
import { AzureTarget } from './azure';
import { GcsTarget } from './gcs';
import { LocalTarget } from './local';
import { S3Target } from './s3';
import type { SnapshotTarget } from './target';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The Azure credential of an auth mode, as Vault's: shared, the account key; managed, the managed
 * identity with cloudthree_client_id (IMDS on a VM, IDENTITY_ENDPOINT on App Service and Arc,
 * AZURE_POD_IDENTITY_AUTHORITY_HOST where set, as @azure/identity finds them); environment, the
 * SDK's default chain (a service principal or workload identity from AZURE_* variables, then
 * managed identity), as the S3 and GCS targets use their SDKs' default chains.
 */
function azureCredential(c: SnapshotConfig): { accountKey: string } | TokenCredential {
  const mode = str(c.cloudthree_auth_mode) ?? 'shared';
  if (mode === 'managed') return new ManagedIdentityCredential({ clientId: String(c.cloudthree_client_id) });
  if (mode === 'environment') return new DefaultAzureCredential();
  return { accountKey: String(c.cloudthree_account_key) };
}

export function createTarget(c: SnapshotConfig): SnapshotTarget {
  switch (c.storage_type) {
    case 'local':
      return new LocalTarget({ dir: c.path_prefix, filePrefix: c.file_prefix, maxSpace: Number(c.local_max_space) });
    case 'cloudone-store':
      return new S3Target({
        bucket: String(c.cloudone_bucket),
        region: String(c.cloudone_region),
        pathPrefix: c.path_prefix,
        accessKeyId: str(c.cloudone_access_key_id),
        secretAccessKey: str(c.cloudone_secret_access_key),
        sessionToken: str(c.cloudone_session_token),
        endpoint: str(c.cloudone_endpoint),
        disableTls: c.cloudone_disable_tls === true,
        forcePathStyle: c.cloudone_force_path_style === true,
        enableKms: c.cloudone_enable_kms === true,
        kmsKey: str(c.cloudone_kms_key),
        serverSideEncryption: c.cloudone_server_side_encryption === true,
      });
    case 'cloudtwo-store':
      return new GcsTarget({
        bucket: String(c.cloudtwo_bucket),
        pathPrefix: c.path_prefix,
        serviceAccountKey: str(c.cloudtwo_service_account_key),
        endpoint: str(c.cloudtwo_endpoint),
        disableTls: c.cloudtwo_disable_tls === true,
      });
    case 'cloudthree-store': {
      return new AzureTarget({
        container: String(c.cloudthree_container_name),
        accountName: str(c.cloudthree_account_name),
        credential: azureCredential(c),
        pathPrefix: c.path_prefix,
        blobEnvironment: str(c.cloudthree_blob_environment),
        endpoint: str(c.cloudthree_endpoint),
      });
    }
  }
}
