// The `cloud` auth role's field table: kinds, create defaults, read omissions, owning type,
// deprecated aliases, Vault's spelling and descriptions. Plain data, without zod: the manifest
// schema, the Terraform provider's schema and docs, the dialect's renames and the engine's stored
// record (its type, create defaults and read shape) are built from it. The token fields are one
// group (token-fields.ts), as Vault's tokenutil.

import { roleField as f, type CanonicalValues, type RoleFieldSpec, type RoleType } from './role-field-spec';
import { TOKEN_ALIASES, TOKEN_FIELDS } from './token-fields';

export type { RoleFieldKind, RoleFieldSpec, RoleType } from './role-field-spec';
export const ROLE_TYPES = ['iam', 'vm'] as const satisfies readonly RoleType[];

/** The table with its literal names and kinds (the stored record's type is derived from it). */
const ROLE_FIELD_TABLE = [
  f('type', 'string', 'both', {
    description: '`iam` (service-account JWTs) or `vm` (instance identity tokens); a change deletes the role and creates it again with a new role_id.',
  }),
  // path_role.go shows the bound_* lists only when set: a read without one means an empty list.
  f('bound_service_accounts', 'commaList', 'both', {
    default: [],
    readAbsent: [],
    set: true,
    description:
      "Service account emails or ids that may log in; required for iam roles. `*` allows any on iam roles (alone only) and on vm roles on keyward's engine; on Vault and OpenBao `*` on a vm role is a literal that no VM matches (the plan refuses it there).",
  }),
  f('bound_projects', 'commaList', 'both', { default: [], readAbsent: [], set: true, description: 'Projects the identity must belong to.' }),
  f('add_group_aliases', 'bool', 'both', { default: false, description: "Add group aliases for the project and its folders and organization to the token's entity." }),
  // path_role.go reads max_jwt_exp only when non-zero: a stored 0 (every JWT refused) reads as absent.
  f('max_jwt_exp', 'duration', 'iam', { default: 900, readAbsent: 0, description: 'Longest lifetime a login JWT may have (iam roles; at most 1h). Default 15m.' }),
  f('allow_vm_inference', 'bool', 'iam', {
    default: true,
    vault: 'allow_gce_inference',
    description: 'Accept instance identity tokens for this iam role, inferring the service account. Default true.',
  }),
  f('bound_zones', 'commaList', 'vm', { default: [], readAbsent: [], set: true, description: 'Zones the instance must run in (vm roles).' }),
  f('bound_regions', 'commaList', 'vm', { default: [], readAbsent: [], set: true, description: 'Regions the instance must run in (vm roles); ignored where bound_zones is set.' }),
  f('bound_instance_groups', 'commaList', 'vm', {
    default: [],
    readAbsent: [],
    set: true,
    description: 'Instance groups the instance must belong to (vm roles); needs bound_zones or bound_regions.',
  }),
  f('bound_labels', 'labels', 'vm', { default: {}, readAbsent: {}, description: 'Labels the instance must carry, as a map (vm roles).' }),
  ...TOKEN_FIELDS,
  // Deprecated aliases.
  ...TOKEN_ALIASES,
  f('service_accounts', 'commaList', 'both', { aliasOf: 'bound_service_accounts' }),
  f('project_id', 'string', 'both', { aliasOf: 'bound_projects' }),
  f('bound_zone', 'string', 'vm', { aliasOf: 'bound_zones' }),
  f('bound_region', 'string', 'vm', { aliasOf: 'bound_regions' }),
  f('bound_instance_group', 'string', 'vm', { aliasOf: 'bound_instance_groups' }),
  f('name', 'string', 'both'),
];

export const ROLE_FIELDS: readonly RoleFieldSpec[] = ROLE_FIELD_TABLE;

/** The values of a role's canonical fields, by name and kind (the engine's stored record is this). */
export type RoleFieldValues = Omit<CanonicalValues<typeof ROLE_FIELD_TABLE>, 'name'>;

/** The canonical fields a role of a type stores (neither `type` nor `name`): the stored record's own fields. */
export const storedRoleFields = (type: RoleType): readonly RoleFieldSpec[] =>
  ROLE_FIELDS.filter((s) => !s.aliasOf && s.name !== 'name' && s.name !== 'type' && (s.appliesTo === 'both' || s.appliesTo === type));

/** keyward name -> Vault name, for the role fields Vault spells differently. */
export const ROLE_VAULT_NAMES: Readonly<Record<string, string>> = Object.fromEntries(ROLE_FIELDS.filter((f) => f.vault).map((f) => [f.name, f.vault!]));

/** The role fields a difference in which deletes the role and creates it again (path_role.go cannot change a role's type). */
export const ROLE_REPLACE_FIELDS: readonly string[] = ['type'];
