// The automated snapshot config's field table (per storage type, required, secret, default) as
// plain data, without zod: the Terraform provider's schema is built from it at every start.

export const STORAGE_TYPES = ['local', 'cloudone-store', 'cloudtwo-store', 'cloudthree-store'] as const;
export type StorageType = (typeof STORAGE_TYPES)[number];

export const DEFAULT_FILE_PREFIX = 'vault-snapshot';
export const DEFAULT_RETAIN = 1;

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
}

const f = (
  name: string,
  kind: SnapshotFieldKind,
  owner: SnapshotFieldSpec['owner'],
  opts: Partial<Pick<SnapshotFieldSpec, 'required' | 'secret' | 'default'>> = {},
): SnapshotFieldSpec => ({
  name,
  kind,
  owner,
  required: opts.required ?? false,
  secret: opts.secret ?? false,
  default: opts.default ?? (opts.required ? undefined : kind === 'bool' ? false : kind === 'string' ? '' : undefined),
});

/** Every field, in the order reads list them. Seed section 2.3, reference sections 2.1-2.2. */
export const SNAPSHOT_FIELDS: readonly SnapshotFieldSpec[] = [
  f('storage_type', 'string', 'common', { required: true }),
  f('interval', 'duration', 'common', { required: true }),
  f('retain', 'int', 'common', { default: DEFAULT_RETAIN }),
  f('path_prefix', 'string', 'common', { required: true }),
  f('file_prefix', 'string', 'common', { default: DEFAULT_FILE_PREFIX }),
  f('local_max_space', 'int', 'local', { required: true }),
  f('cloudone_bucket', 'string', 'cloudone-store', { required: true }),
  f('cloudone_region', 'string', 'cloudone-store', { required: true }),
  f('cloudone_access_key_id', 'string', 'cloudone-store'),
  f('cloudone_secret_access_key', 'string', 'cloudone-store', { secret: true }),
  f('cloudone_session_token', 'string', 'cloudone-store', { secret: true }),
  f('cloudone_endpoint', 'string', 'cloudone-store'),
  f('cloudone_disable_tls', 'bool', 'cloudone-store'),
  f('cloudone_force_path_style', 'bool', 'cloudone-store'),
  f('cloudone_enable_kms', 'bool', 'cloudone-store'),
  f('cloudone_server_side_encryption', 'bool', 'cloudone-store'),
  f('cloudone_kms_key', 'string', 'cloudone-store'),
  f('cloudtwo_bucket', 'string', 'cloudtwo-store', { required: true }),
  f('cloudtwo_service_account_key', 'string', 'cloudtwo-store', { secret: true }),
  f('cloudtwo_endpoint', 'string', 'cloudtwo-store'),
  f('cloudtwo_disable_tls', 'bool', 'cloudtwo-store'),
  f('cloudthree_container_name', 'string', 'cloudthree-store', { required: true }),
  // Shared-key auth is the only mode this server implements (the seed lets only cloudone and
  // cloudtwo fall back to ambient credentials), so name and key are both required.
  f('cloudthree_account_name', 'string', 'cloudthree-store', { required: true }),
  f('cloudthree_account_key', 'string', 'cloudthree-store', { required: true, secret: true }),
  f('cloudthree_blob_environment', 'string', 'cloudthree-store'),
  f('cloudthree_endpoint', 'string', 'cloudthree-store'),
];

const BY_NAME = new Map(SNAPSHOT_FIELDS.map((s) => [s.name, s]));

export const SNAPSHOT_SECRET_FIELDS: readonly string[] = SNAPSHOT_FIELDS.filter((s) => s.secret).map((s) => s.name);

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
