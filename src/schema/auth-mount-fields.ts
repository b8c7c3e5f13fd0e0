// An auth mount's managed fields (sys/auth/<path>, its tune settings): kind, default, where Vault
// keeps it and a description. Plain data for the manifest, the Terraform provider and the reconciler.

export type MountFieldKind = 'string' | 'bool' | 'duration';

export interface MountFieldSpec {
  name: string;
  kind: MountFieldKind;
  default: string | number | boolean;
  /** Set at enable time only (Vault cannot change it): a change replaces the mount. */
  immutable?: boolean;
  /** A tune setting (sys/auth/<path>/tune, `config` in the sys/auth listing). */
  tune?: boolean;
  values?: readonly string[];
  description: string;
}

export const MOUNT_TOKEN_TYPES = ['default-service', 'default-batch', 'service', 'batch'] as const;
export const LISTING_VISIBILITY = ['', 'hidden', 'unauth'] as const;
/** A mount path like "cloud" or "team/cloud": no leading or trailing "/". */
export const MOUNT_PATH = /^[\w.-]+(\/[\w.-]+)*$/;

export const MOUNT_FIELDS: readonly MountFieldSpec[] = [
  { name: 'description', kind: 'string', default: '', description: 'Human-readable description of the mount.' },
  {
    name: 'local',
    kind: 'bool',
    default: false,
    immutable: true,
    description: 'Keep the mount on this cluster only (not replicated). Set when the mount is enabled; a change replaces the mount.',
  },
  { name: 'default_lease_ttl', kind: 'duration', default: 0, tune: true, description: 'Default lifetime of tokens issued through this mount; 0 = the system default.' },
  { name: 'max_lease_ttl', kind: 'duration', default: 0, tune: true, description: 'Longest lifetime of tokens issued through this mount; 0 = the system default.' },
  {
    name: 'token_type',
    kind: 'string',
    default: 'default-service',
    tune: true,
    values: MOUNT_TOKEN_TYPES,
    description: 'Token type the mount issues: `default-service` (default), `default-batch`, `service` or `batch`.',
  },
  {
    name: 'listing_visibility',
    kind: 'string',
    default: '',
    tune: true,
    values: LISTING_VISIBILITY,
    description: 'Whether the mount is listed to unauthenticated users: `unauth`, or `""`/`hidden` (not listed).',
  },
];

/**
 * The mount fields a difference in which replaces the mount (disable, enable): its type and the
 * fields Vault sets at enable time only. The one list of them; every front end asks it.
 */
export const MOUNT_REPLACE_FIELDS: readonly string[] = ['type', ...MOUNT_FIELDS.filter((f) => f.immutable).map((f) => f.name)];

export const MOUNT_TUNE_FIELDS: readonly string[] = MOUNT_FIELDS.filter((f) => f.tune).map((f) => f.name);
