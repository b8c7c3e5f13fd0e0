// The `cloud` auth role's field table: kinds, create defaults, owning type, deprecated aliases,
// Vault's spelling and descriptions. Plain data, without zod: the manifest schema, the Terraform
// provider's schema and docs, and the dialect's renames are built from it.

export const ROLE_TYPES = ['iam', 'vm'] as const;
export type RoleType = (typeof ROLE_TYPES)[number];

export type RoleFieldKind = 'string' | 'bool' | 'int' | 'duration' | 'commaList' | 'labels';

export interface RoleFieldSpec {
  name: string;
  kind: RoleFieldKind;
  /** Create default as returned on read; undefined when the field is write-only or required. */
  default?: unknown;
  /** What a read that leaves the field out means, where that is not the default (Vault omits a stored 0). */
  readAbsent?: unknown;
  /** The role type a field belongs to; 'both' for common fields. */
  appliesTo: 'both' | RoleType;
  /** For deprecated fields: the field they fold into. */
  aliasOf?: string;
  /** Set-valued list (order-free, sorted on write). */
  set?: boolean;
  secret: false;
  /** Vault's name for the field (absent: spelled the same). */
  vault?: string;
  /** For the provider schema, the reference docs and the constructs (canonical fields only). */
  description?: string;
}

const f = (
  name: string,
  kind: RoleFieldKind,
  appliesTo: RoleFieldSpec['appliesTo'],
  extra: Partial<Pick<RoleFieldSpec, 'default' | 'readAbsent' | 'aliasOf' | 'set' | 'vault' | 'description'>> = {},
): RoleFieldSpec => ({ name, kind, appliesTo, secret: false, ...extra });

export const ROLE_FIELDS: readonly RoleFieldSpec[] = [
  f('type', 'string', 'both', { description: '`iam` (service-account JWTs) or `vm` (instance identity tokens); a change deletes the role and creates it again with a new role_id.' }),
  f('bound_service_accounts', 'commaList', 'both', { default: [], set: true, description: 'Service account emails or ids that may log in; required for iam roles. `*` allows any (iam: alone only).' }),
  f('bound_projects', 'commaList', 'both', { default: [], set: true, description: 'Projects the identity must belong to.' }),
  f('add_group_aliases', 'bool', 'both', { default: false, description: 'Add group aliases for the project and its folders and organization to the token\'s entity.' }),
  // path_role.go reads max_jwt_exp only when non-zero: a stored 0 (every JWT refused) reads as absent.
  f('max_jwt_exp', 'duration', 'iam', { default: 900, readAbsent: 0, description: 'Longest lifetime a login JWT may have (iam roles; at most 1h). Default 15m.' }),
  f('allow_vm_inference', 'bool', 'iam', { default: true, vault: 'allow_gce_inference', description: 'Accept instance identity tokens for this iam role, inferring the service account. Default true.' }),
  f('bound_zones', 'commaList', 'vm', { default: [], set: true, description: 'Zones the instance must run in (vm roles).' }),
  f('bound_regions', 'commaList', 'vm', { default: [], set: true, description: 'Regions the instance must run in (vm roles); ignored where bound_zones is set.' }),
  f('bound_instance_groups', 'commaList', 'vm', { default: [], set: true, description: 'Instance groups the instance must belong to (vm roles); needs bound_zones or bound_regions.' }),
  f('bound_labels', 'labels', 'vm', { default: {}, description: 'Labels the instance must carry, as a map (vm roles).' }),
  f('token_policies', 'commaList', 'both', { default: [], description: 'Policies attached to tokens issued through this role.' }),
  f('token_ttl', 'duration', 'both', { default: 0, description: 'Initial token lifetime; 0 = the mount or system default.' }),
  f('token_max_ttl', 'duration', 'both', { default: 0, description: 'Longest lifetime a token may be renewed to; 0 = the mount or system default.' }),
  f('token_explicit_max_ttl', 'duration', 'both', { default: 0, description: 'Hard cap on the token lifetime, beyond any renewal; 0 = none.' }),
  f('token_period', 'duration', 'both', { default: 0, description: 'Makes tokens periodic: each renewal extends them by this period; 0 = not periodic.' }),
  f('token_no_default_policy', 'bool', 'both', { default: false, description: 'Do not attach the `default` policy.' }),
  f('token_num_uses', 'int', 'both', { default: 0, description: 'Uses a token allows; 0 = unlimited.' }),
  f('token_type', 'string', 'both', { default: 'default', description: '`default`, `service` or `batch`.' }),
  f('token_bound_cidrs', 'commaList', 'both', { default: [], description: 'CIDR blocks tokens may be used from.' }),
  // Deprecated aliases.
  f('policies', 'commaList', 'both', { aliasOf: 'token_policies' }),
  f('ttl', 'duration', 'both', { aliasOf: 'token_ttl' }),
  f('max_ttl', 'duration', 'both', { aliasOf: 'token_max_ttl' }),
  f('period', 'duration', 'both', { aliasOf: 'token_period' }),
  f('service_accounts', 'commaList', 'both', { aliasOf: 'bound_service_accounts' }),
  f('project_id', 'string', 'both', { aliasOf: 'bound_projects' }),
  f('bound_zone', 'string', 'vm', { aliasOf: 'bound_zones' }),
  f('bound_region', 'string', 'vm', { aliasOf: 'bound_regions' }),
  f('bound_instance_group', 'string', 'vm', { aliasOf: 'bound_instance_groups' }),
  f('name', 'string', 'both'),
];

/** keyward name -> Vault name, for the role fields Vault spells differently. */
export const ROLE_VAULT_NAMES: Readonly<Record<string, string>> = Object.fromEntries(ROLE_FIELDS.filter((f) => f.vault).map((f) => [f.name, f.vault!]));

