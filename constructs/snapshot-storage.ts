// The typed storage choice of a SnapshotAutoConfig: one factory per storage type, each taking only
// that type's options, mapped to the wire field names of src/schema/snapshot-config.ts.

import type { StorageType } from '../src/schema/snapshot-config';
import type { SecretString } from './secret';

export interface LocalStorageOptions {
  /** Byte budget for all snapshots of this config in the directory; a snapshot that would exceed it fails. */
  readonly maxSpaceBytes: number;
}

/** An S3-compatible object store (`cloudone-store`). */
export interface CloudOneStorageOptions {
  readonly bucket: string;
  readonly region: string;
  /**
   * Static access key id.
   * @default the store SDK's ambient credentials
   */
  readonly accessKeyId?: string;
  /**
   * Static secret key (a secret; required with accessKeyId).
   * @default the store SDK's ambient credentials
   */
  readonly secretAccessKey?: SecretString;
  /**
   * Session token of temporary credentials (a secret).
   * @default none
   */
  readonly sessionToken?: SecretString;
  /**
   * Custom endpoint (MinIO, emulators).
   * @default the provider's endpoint for the region
   */
  readonly endpoint?: string;
  /** Plain HTTP to the endpoint; tests only. @default false */
  readonly disableTls?: boolean;
  /** Path-style URLs (endpoint/bucket/key). @default false */
  readonly forcePathStyle?: boolean;
  /** Encrypt with a managed key service. @default false */
  readonly enableKms?: boolean;
  /** Encrypt with store-managed AES256 keys; not with enableKms. @default false */
  readonly serverSideEncryption?: boolean;
  /** Key used when enableKms is true. @default the store's default key */
  readonly kmsKey?: string;
}

/** A GCS-like object store (`cloudtwo-store`). */
export interface CloudTwoStorageOptions {
  readonly bucket: string;
  /**
   * Service-account key JSON (a secret).
   * @default the store SDK's ambient credentials
   */
  readonly serviceAccountKey?: SecretString;
  /** Custom endpoint (emulators). @default the provider's endpoint */
  readonly endpoint?: string;
  /** Plain HTTP to the endpoint; tests only. @default false */
  readonly disableTls?: boolean;
}

/** How a `cloudthree-store` is authenticated (Vault 1.18+ `azure_auth_mode`). */
export enum CloudThreeAuthMode {
  /** The shared account key (`accountKey`). */
  SHARED = 'shared',
  /** A managed identity (`clientId`). The embedded engine cannot use it: its attempts fail. */
  MANAGED = 'managed',
  /** Credentials from the server's environment. The embedded engine cannot use it: its attempts fail. */
  ENVIRONMENT = 'environment',
}

/** An Azure-Blob-like object store (`cloudthree-store`). */
export interface CloudThreeStorageOptions {
  readonly containerName: string;
  /**
   * Storage account name; required unless authMode is ENVIRONMENT.
   * @default none
   */
  readonly accountName?: string;
  /**
   * How the store is authenticated.
   * @default CloudThreeAuthMode.SHARED
   */
  readonly authMode?: CloudThreeAuthMode;
  /**
   * Shared account key (a secret); required in SHARED mode.
   * @default none
   */
  readonly accountKey?: SecretString;
  /**
   * Client id of the managed identity; required in MANAGED mode.
   * @default none
   */
  readonly clientId?: string;
  /** Cloud environment name, e.g. AZUREPUBLICCLOUD. @default AZUREPUBLICCLOUD */
  readonly blobEnvironment?: string;
  /** Custom endpoint (Azurite). @default derived from the account name and environment */
  readonly endpoint?: string;
}

/** Where snapshots are written. Create with `SnapshotStorage.local(...)` and friends. */
export class SnapshotStorage {
  /** A directory on the server's filesystem (`path_prefix` is the directory). */
  static local(o: LocalStorageOptions): SnapshotStorage {
    return new SnapshotStorage('local', { local_max_space: o.maxSpaceBytes }, {});
  }

  /** An S3-compatible bucket (`path_prefix` is the key prefix). */
  static cloudOne(o: CloudOneStorageOptions): SnapshotStorage {
    return new SnapshotStorage(
      'cloudone-store',
      {
        cloudone_bucket: o.bucket,
        cloudone_region: o.region,
        cloudone_access_key_id: o.accessKeyId,
        cloudone_endpoint: o.endpoint,
        cloudone_disable_tls: o.disableTls,
        cloudone_force_path_style: o.forcePathStyle,
        cloudone_enable_kms: o.enableKms,
        cloudone_server_side_encryption: o.serverSideEncryption,
        cloudone_kms_key: o.kmsKey,
      },
      { cloudone_secret_access_key: o.secretAccessKey, cloudone_session_token: o.sessionToken },
      given(o, { secretAccessKey: 'cloudone_secret_access_key', sessionToken: 'cloudone_session_token' }),
    );
  }

  /** A GCS-like bucket (`path_prefix` is the object-name prefix). */
  static cloudTwo(o: CloudTwoStorageOptions): SnapshotStorage {
    return new SnapshotStorage(
      'cloudtwo-store',
      { cloudtwo_bucket: o.bucket, cloudtwo_endpoint: o.endpoint, cloudtwo_disable_tls: o.disableTls },
      { cloudtwo_service_account_key: o.serviceAccountKey },
      given(o, { serviceAccountKey: 'cloudtwo_service_account_key' }),
    );
  }

  /** An Azure-Blob-like container (`path_prefix` is the blob-name prefix). */
  static cloudThree(o: CloudThreeStorageOptions): SnapshotStorage {
    return new SnapshotStorage(
      'cloudthree-store',
      {
        cloudthree_container_name: o.containerName,
        cloudthree_account_name: o.accountName,
        cloudthree_auth_mode: o.authMode,
        cloudthree_client_id: o.clientId,
        cloudthree_blob_environment: o.blobEnvironment,
        cloudthree_endpoint: o.endpoint,
      },
      { cloudthree_account_key: o.accountKey },
      given(o, { accountKey: 'cloudthree_account_key' }),
    );
  }

  private constructor(
    /** The wire `storage_type`. */
    readonly storageType: StorageType,
    /** Non-secret wire fields (undefined = not set). */
    readonly fields: Readonly<Record<string, string | number | boolean | undefined>>,
    /** Secret wire fields (undefined = not set). */
    readonly secrets: Readonly<Record<string, SecretString | undefined>>,
    /** Secret fields whose option was present, even as undefined (an unset environment variable). */
    readonly givenSecrets: readonly string[] = [],
  ) {}
}

/** Wire names of the secret options present in `o` (as keys, whatever their value). */
function given(o: object, names: Record<string, string>): string[] {
  return Object.entries(names)
    .filter(([opt]) => opt in o)
    .map(([, wire]) => wire);
}
