// The automated snapshot config's field table: per field its kind, storage type, required, secret,
// default, Vault's spelling and a description. Plain data, without zod: the manifest schema, the
// Terraform provider's schema and docs, the dialect's renames and the import code are built from it.

export const STORAGE_TYPES = ['local', 'cloudone-store', 'cloudtwo-store', 'cloudthree-store'] as const;
export type StorageType = (typeof STORAGE_TYPES)[number];

export const DEFAULT_FILE_PREFIX = 'vault-snapshot';
export const DEFAULT_RETAIN = 1;

/** Azure credential modes (Vault >= 1.18 `azure_auth_mode`): shared key, managed identity, environment. */
export const CLOUDTHREE_AUTH_MODES = ['shared', 'managed', 'environment'] as const;

export type SnapshotFieldKind = 'duration' | 'int' | 'string' | 'bool';

export interface SnapshotFieldSpec {
  name: string;
  kind: SnapshotFieldKind;
  /** "common" or the storage type the field belongs to. */
  owner: 'common' | StorageType;
  required: boolean;
  /** Never returned on read, never logged; only a fingerprint may leave the process. */
  secret: boolean;
  /** Value filled in when the field was never written (undefined: no default, e.g. required). */
  default?: string | number | boolean;
  /** Vault's name for the field (absent: spelled the same). */
  vault?: string;
  /** Allowed values of a string field. */
  values?: readonly string[];
  /** Sent in every write, default included (terraform-provider-vault's docs: azure_auth_mode is "Required by Vault API"). */
  alwaysSent?: boolean;
  /** One or two sentences for the provider schema, the reference docs and the constructs. */
  description: string;
}

type Opts = Partial<Pick<SnapshotFieldSpec, 'required' | 'secret' | 'default' | 'vault' | 'values' | 'alwaysSent'>>;

const f = (name: string, kind: SnapshotFieldKind, owner: SnapshotFieldSpec['owner'], description: string, opts: Opts = {}): SnapshotFieldSpec => ({
  name,
  kind,
  owner,
  description,
  required: opts.required ?? false,
  secret: opts.secret ?? false,
  default: opts.default ?? (opts.required ? undefined : kind === 'bool' ? false : kind === 'string' ? '' : undefined),
  ...(opts.vault ? { vault: opts.vault } : {}),
  ...(opts.values ? { values: opts.values } : {}),
  ...(opts.alwaysSent ? { alwaysSent: true } : {}),
});

/** Every field, in the order reads list them. Seed section 2.3, reference sections 2.1-2.2, vault-fidelity.md 1c. */
export const SNAPSHOT_FIELDS: readonly SnapshotFieldSpec[] = [
  f('storage_type', 'string', 'common', 'Where snapshots are written: `local`, `cloudone-store`, `cloudtwo-store` or `cloudthree-store`. Cannot change in place.', {
    required: true,
  }),
  f('interval', 'duration', 'common', 'Time between snapshots: seconds or a duration string such as `"1h"` or `"24h"`.', { required: true }),
  f('retain', 'int', 'common', 'How many snapshots to keep; older ones are deleted after a new one is complete. Default 1.', { default: DEFAULT_RETAIN }),
  f('path_prefix', 'string', 'common', 'Directory (local) or object-name prefix (object stores) snapshots are written under.', { required: true }),
  f('file_prefix', 'string', 'common', 'Prefix of each snapshot file name. Default `vault-snapshot`.', { default: DEFAULT_FILE_PREFIX }),
  f(
    'autoload_enabled',
    'bool',
    'common',
    'Load the newest snapshot of this config automatically when recovering (Vault 1.21+). Not for local storage; at most one config may enable it.',
  ),
  f('local_max_space', 'int', 'local', 'Bytes the snapshots of this config may use in total; required (above 0) for local storage.', { required: true }),
  f('cloudone_bucket', 'string', 'cloudone-store', 'Bucket name (S3-style store).', { required: true, vault: 'aws_s3_bucket' }),
  f('cloudone_region', 'string', 'cloudone-store', 'Region of the bucket.', { required: true, vault: 'aws_s3_region' }),
  f('cloudone_access_key_id', 'string', 'cloudone-store', 'Access key id; empty = ambient credentials. Set together with the secret access key.', { vault: 'aws_access_key_id' }),
  f('cloudone_secret_access_key', 'string', 'cloudone-store', 'Secret access key.', { secret: true, vault: 'aws_secret_access_key' }),
  f('cloudone_session_token', 'string', 'cloudone-store', 'Session token of temporary credentials.', { secret: true, vault: 'aws_session_token' }),
  f('cloudone_endpoint', 'string', 'cloudone-store', 'Endpoint of an S3-compatible store; empty = the provider default.', { vault: 'aws_s3_endpoint' }),
  f('cloudone_disable_tls', 'bool', 'cloudone-store', 'Use plain HTTP to the endpoint (testing only).', { vault: 'aws_s3_disable_tls' }),
  f('cloudone_force_path_style', 'bool', 'cloudone-store', 'Address the bucket in the path instead of the host name.', { vault: 'aws_s3_force_path_style' }),
  f('cloudone_enable_kms', 'bool', 'cloudone-store', 'Encrypt with a KMS key (excludes server-side encryption).', { vault: 'aws_s3_enable_kms' }),
  f('cloudone_server_side_encryption', 'bool', 'cloudone-store', "Use the store's server-side encryption (excludes KMS).", { vault: 'aws_s3_server_side_encryption' }),
  f('cloudone_kms_key', 'string', 'cloudone-store', 'KMS key id when KMS encryption is enabled.', { vault: 'aws_s3_kms_key' }),
  f('cloudtwo_bucket', 'string', 'cloudtwo-store', 'Bucket name (GCS-style store).', { required: true, vault: 'google_gcs_bucket' }),
  f('cloudtwo_service_account_key', 'string', 'cloudtwo-store', 'Service account key JSON; empty = ambient credentials.', { secret: true, vault: 'google_service_account_key' }),
  f('cloudtwo_endpoint', 'string', 'cloudtwo-store', 'Endpoint of a GCS-compatible store; empty = the provider default.', { vault: 'google_endpoint' }),
  f('cloudtwo_disable_tls', 'bool', 'cloudtwo-store', 'Use plain HTTP to the endpoint (testing only).', { vault: 'google_disable_tls' }),
  f('cloudthree_container_name', 'string', 'cloudthree-store', 'Blob container name (Azure-style store).', { required: true, vault: 'azure_container_name' }),
  f('cloudthree_account_name', 'string', 'cloudthree-store', 'Storage account name; required in `shared` and `managed` auth modes.', { vault: 'azure_account_name' }),
  f(
    'cloudthree_auth_mode',
    'string',
    'cloudthree-store',
    "How the store is authenticated: `shared` (account key, the default), `managed` (managed identity, needs the client id) or `environment` (credentials from the server's environment). Vault 1.18+.",
    { default: 'shared', values: CLOUDTHREE_AUTH_MODES, vault: 'azure_auth_mode', alwaysSent: true },
  ),
  f('cloudthree_account_key', 'string', 'cloudthree-store', 'Storage account key; required in `shared` auth mode.', { secret: true, vault: 'azure_account_key' }),
  f('cloudthree_client_id', 'string', 'cloudthree-store', 'Client id of the managed identity (`managed` auth mode).', { vault: 'azure_client_id' }),
  f('cloudthree_blob_environment', 'string', 'cloudthree-store', 'Azure cloud of the account, such as `AZUREPUBLICCLOUD`.', { vault: 'azure_blob_environment' }),
  f('cloudthree_endpoint', 'string', 'cloudthree-store', 'Endpoint of an Azure-compatible blob service; empty = from the blob environment.', { vault: 'azure_endpoint' }),
];

const BY_NAME = new Map(SNAPSHOT_FIELDS.map((s) => [s.name, s]));

/** keyward name -> Vault name, for the fields Vault spells differently. */
export const SNAPSHOT_VAULT_NAMES: Readonly<Record<string, string>> = Object.fromEntries(SNAPSHOT_FIELDS.filter((s) => s.vault).map((s) => [s.name, s.vault!]));

export function snapshotFieldSpec(name: string): SnapshotFieldSpec | undefined {
  return BY_NAME.get(name);
}

/** The fields a config of this type carries: common ones plus its own. */
export function fieldsForStorageType(type: StorageType): SnapshotFieldSpec[] {
  return SNAPSHOT_FIELDS.filter((s) => s.owner === 'common' || s.owner === type);
}

export function isStorageType(v: unknown): v is StorageType {
  return typeof v === 'string' && (STORAGE_TYPES as readonly string[]).includes(v);
}

/** The snapshot config fields a difference in which deletes the config and writes it again (a storage type cannot change in place). */
export const SNAPSHOT_REPLACE_FIELDS: readonly string[] = ['storage_type'];
