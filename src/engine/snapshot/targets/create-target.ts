// Builds the target a stored configuration names: the only place that maps wire fields
// (cloudone_*, cloudtwo_*, cloudthree_*, local_max_space) onto target options.

import type { SnapshotConfig } from '../../../schema/snapshot-config';
import { AzureTarget } from './azure';
import { GcsTarget } from './gcs';
import { LocalTarget } from './local';
import { S3Target } from './s3';
import type { SnapshotTarget } from './target';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

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
      // Managed identity and environment credentials need Azure's identity endpoints, which the
      // engine does not speak: it stores such a config, and each attempt fails with this text.
      const mode = str(c.cloudthree_auth_mode) ?? 'shared';
      if (mode !== 'shared') {
        throw new Error(
          `cloudthree_auth_mode=${mode} is not supported by keyward's embedded engine (it authenticates to the store with an account key only); ` +
            'use cloudthree_auth_mode=shared with cloudthree_account_key, or run this config on Vault Enterprise',
        );
      }
      return new AzureTarget({
        container: String(c.cloudthree_container_name),
        accountName: String(c.cloudthree_account_name),
        accountKey: String(c.cloudthree_account_key),
        pathPrefix: c.path_prefix,
        blobEnvironment: str(c.cloudthree_blob_environment),
        endpoint: str(c.cloudthree_endpoint),
      });
    }
  }
}
