// The automated snapshot configuration on the wire (sys/storage/raft/snapshot-auto/config/:name):
// the field table (per storage type, required, secret, default), write validation and read shape.

import { z } from 'zod';
import { field } from './fields';

export const STORAGE_TYPES = ['local', 'cloudone-store', 'cloudtwo-store', 'cloudthree-store'] as const;
export type StorageType = (typeof STORAGE_TYPES)[number];

export const DEFAULT_FILE_PREFIX = 'vault-snapshot';
export const DEFAULT_RETAIN = 1;

type Kind = 'duration' | 'int' | 'string' | 'bool';

export interface SnapshotFieldSpec {
  name: string;
  kind: Kind;
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
  kind: Kind,
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

const KIND_SCHEMA: Record<Kind, () => z.ZodType> = {
  duration: field.duration,
  int: field.int,
  string: field.string,
  bool: field.bool,
};

/** zod field shape of the write body, for parseFields (loose Vault-style coercion per field). */
export const snapshotConfigFieldShape: Record<string, z.ZodType> = Object.fromEntries(
  SNAPSHOT_FIELDS.map((s) => [s.name, KIND_SCHEMA[s.kind]()]),
);

/** A stored configuration: every field of its storage type, defaults filled, secrets included. */
export interface SnapshotConfig {
  storage_type: StorageType;
  interval: number;
  retain: number;
  path_prefix: string;
  file_prefix: string;
  [field: string]: string | number | boolean;
}

/** The read response: as stored, with the secret keys omitted entirely (never "" or a mask). */
export type SnapshotConfigRead = Record<string, string | number | boolean>;

/** zod schema of the read response `data`, for clients. Unknown extra keys pass through. */
export const snapshotConfigReadSchema = z
  .object({
    storage_type: z.enum(STORAGE_TYPES),
    interval: z.number().int(),
    retain: z.number().int(),
    path_prefix: z.string(),
    file_prefix: z.string(),
  })
  .catchall(z.union([z.string(), z.number(), z.boolean()]));

/** Name rule for configurations: one path segment of 1-128 characters [A-Za-z0-9._-]. */
export function snapshotConfigNameProblem(name: string): string | undefined {
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(name)) {
    return `name ${JSON.stringify(name)} is invalid: use 1-128 characters from A-Z a-z 0-9 . _ -`;
  }
  return undefined;
}
