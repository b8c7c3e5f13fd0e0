// The role write rules of the `cloud` auth method as pure functions: merge a parsed request into
// the stored role (create defaults, deprecated aliases, cross-type checks, validation), the read
// shape, and the two edit endpoints. The engine stores what these return; the reconciler uses
// canonicalRoleRead() to fill server defaults before diffing.

import { ApiError } from './errors';
import { FieldProblemsError, problemSink, type FieldProblem } from './field-problems';
import { parseCidr, CidrError } from './cidr';
import { formatGoDuration } from './duration';
import { ROLE_FIELDS, storedRoleFields, type RoleFieldValues } from './cloud-role-fields';
import type { AliasValues } from './role-field-spec';
import { TOKEN_ALIASES } from './token-fields';
import { MAX_JWT_EXP_LIMIT, ROLE_TYPES, TOKEN_TYPE_VALUES, TYPE_ONLY_FIELDS, canonicalList, canonicalSet, parseLabels, sortedLabels, type RoleType } from './cloud-role';

/**
 * The engine's stored role: the role field table's canonical fields, typed by their kinds
 * (RoleFieldValues), plus role_id and the deprecated token names' copies. A table field is a record
 * field; the create defaults and the read shape come from the table too (newRole, roleReadShape).
 */
export type StoredRole = Omit<RoleFieldValues, 'type' | 'token_type'> & {
  role_id: string;
  type: RoleType;
  token_type: (typeof TOKEN_TYPE_VALUES)[number];
  /** Legacy copies, set only when the deprecated field was used (read back under the old names). */
  legacy: TokenAliasValues;
};

/** The deprecated token names' stored copies (tokenutil's Deprecated fields). */
type TokenAliasValues = AliasValues<typeof TOKEN_ALIASES>;

/** Parsed role request values (output of parseFields with roleWriteShape). */
export type RoleWriteValues = Record<string, unknown>;

export interface RoleWriteOptions {
  /** role_id for a new role. */
  newRoleId: string;
  /** Mount max lease TTL in seconds (for the period check and capping warnings); 0 = unknown. */
  mountMaxTtl?: number;
  mountDefaultTtl?: number;
  /** Add the embedded engine's own rules (beyond Vault's); the error says so. */
  engineRules?: boolean;
  /**
   * Set: every rule broken is recorded here with its field, and the write fails at the end with a
   * FieldProblemsError listing them all. Unset: the first fails the write, as Vault does.
   */
  problems?: FieldProblem[];
}

type Fail = ReturnType<typeof problemSink>;

const bad = (msg: string) => new ApiError('invalid_request', [msg]);

/** A new role: every stored field of the table at its create default (both types' fields, as Vault's role struct). */
function newRole(type: RoleType, roleId: string): StoredRole {
  const fields = ROLE_FIELDS.filter((f) => !f.aliasOf && f.name !== 'name' && f.name !== 'type');
  const defaults = Object.fromEntries(fields.map((f) => [f.name, structuredClone(f.default)])) as Omit<StoredRole, 'role_id' | 'type' | 'legacy'>;
  return { ...defaults, role_id: roleId, type, legacy: {} };
}

const PLAIN_KINDS = new Set(['bool', 'int', 'duration']);
const has = (v: RoleWriteValues, k: string) => Object.prototype.hasOwnProperty.call(v, k) && v[k] !== undefined;
const list = (v: RoleWriteValues, k: string) => (v[k] as string[] | undefined) ?? [];

/** Token fields with Vault's check order; deprecated aliases folded in. Mutates role. */
function applyTokenFields(role: StoredRole, v: RoleWriteValues, fail: Fail): void {
  if (has(v, 'token_bound_cidrs')) {
    const cidrs = canonicalList(list(v, 'token_bound_cidrs'));
    let valid = true;
    for (const c of cidrs) {
      try {
        parseCidr(c);
      } catch (e) {
        if (!(e instanceof CidrError)) throw e;
        fail('token_bound_cidrs', `field "token_bound_cidrs": ${e.message}`);
        valid = false;
      }
    }
    if (valid) role.token_bound_cidrs = cidrs;
  }
  if (has(v, 'token_type')) {
    const t = String(v.token_type).trim();
    const norm = t === '' ? 'default' : t;
    if (!(TOKEN_TYPE_VALUES as readonly string[]).includes(norm)) {
      fail('token_type', `invalid 'token_type' value ${JSON.stringify(t)}: must be one of: default, service, batch`);
    } else role.token_type = norm as StoredRole['token_type'];
  }
  if (has(v, 'token_num_uses')) {
    const n = v.token_num_uses as number;
    if (n < 0) fail('token_num_uses', `'token_num_uses' cannot be negative (got ${n})`);
    else role.token_num_uses = n;
  }
  if (has(v, 'token_explicit_max_ttl')) role.token_explicit_max_ttl = v.token_explicit_max_ttl as number;
  if (has(v, 'token_no_default_policy')) role.token_no_default_policy = v.token_no_default_policy as boolean;

  // Deprecated aliases: the new field wins; the legacy copy mirrors whichever was used.
  const pairs = [
    ['policies', 'token_policies'],
    ['ttl', 'token_ttl'],
    ['max_ttl', 'token_max_ttl'],
    ['period', 'token_period'],
  ] as const;
  for (const [old, neu] of pairs) {
    const norm = (x: unknown) => (old === 'policies' ? canonicalList(x as string[]) : x);
    if (has(v, neu)) {
      const val = norm(v[neu]);
      (role as unknown as Record<string, unknown>)[neu] = val;
      if (has(v, old)) (role.legacy as Record<string, unknown>)[old] = val;
      else delete role.legacy[old];
    } else if (has(v, old)) {
      const val = old === 'policies' ? canonicalSet((v[old] as string[]).map((p) => p.toLowerCase())) : (v[old] as number);
      (role as unknown as Record<string, unknown>)[neu] = val;
      (role.legacy as Record<string, unknown>)[old] = val;
    }
  }
  if (role.token_type === 'batch' && role.token_period > 0) {
    fail('token_type', `'token_type' cannot be 'batch' or 'default_batch' when set to generate periodic tokens`, ['token_period']);
  }
  if (role.token_type === 'batch' && role.token_num_uses > 0) {
    fail('token_type', `'token_type' cannot be 'batch' or 'default_batch' when set to generate tokens with limited use count`, ['token_num_uses']);
  }
  if (role.token_ttl > 0 && role.token_max_ttl > 0 && role.token_ttl > role.token_max_ttl) {
    fail('token_ttl', `'token_ttl' cannot be greater than 'token_max_ttl'`, ['token_max_ttl']);
  }
}

/** Applies a role write (create when existing is undefined); returns the role and warnings. */
export function applyRoleWrite(existing: StoredRole | undefined, v: RoleWriteValues, opts: RoleWriteOptions): { role: StoredRole; warnings: string[] } {
  const warnings: string[] = [];
  const fail = problemSink(opts.problems);
  // Without a valid type no other rule can be checked: stop at once, collecting or not.
  const typeProblem = (message: string) => (opts.problems ? new FieldProblemsError([...opts.problems, { field: 'type', message }]) : bad(message));
  let role: StoredRole;
  const givenType = has(v, 'type') ? String(v.type).trim() : undefined;
  if (existing) {
    if (givenType !== undefined && givenType !== existing.type) {
      throw typeProblem(`role type cannot be changed for an existing role (it is ${JSON.stringify(existing.type)}, the request says ${JSON.stringify(givenType)})`);
    }
    role = structuredClone(existing);
  } else {
    if (!givenType) throw typeProblem('role type cannot be empty: field "type" is required (iam or vm)');
    if (!(ROLE_TYPES as readonly string[]).includes(givenType)) throw typeProblem(`role type '${givenType}' is invalid: must be iam or vm`);
    role = newRole(givenType as RoleType, opts.newRoleId);
  }

  applyTokenFields(role, v, fail);

  if (has(v, 'bound_service_accounts')) role.bound_service_accounts = canonicalSet(list(v, 'bound_service_accounts'));
  else if (has(v, 'service_accounts')) role.bound_service_accounts = canonicalSet(list(v, 'service_accounts'));
  if (has(v, 'bound_projects') && has(v, 'project_id')) fail('bound_projects', `only one of 'bound_projects' or 'project_id' can be given`, ['project_id']);
  else if (has(v, 'bound_projects')) role.bound_projects = canonicalSet(list(v, 'bound_projects'));
  else if (has(v, 'project_id') && String(v.project_id).trim() !== '') role.bound_projects = [String(v.project_id).trim()];

  const other: RoleType = role.type === 'iam' ? 'vm' : 'iam';
  const wrong = TYPE_ONLY_FIELDS[other].filter((k) => has(v, k));
  if (wrong.length > 0 && !opts.problems) {
    throw bad(`invalid args found for role of type ${role.type}: ${wrong.join(',')} (these fields apply only to ${other} roles)`);
  }
  for (const k of wrong) fail(k, `invalid args found for role of type ${role.type}: ${k} (this field applies only to ${other} roles)`, ['type']);

  // Plain values (bool, int, duration) of the role's own table fields are stored as given; their
  // rules are checked on the whole role (validateRole). Lists, labels and token fields have rules above and below.
  const stored = role as unknown as Record<string, unknown>;
  for (const f of storedRoleFields(role.type)) if (PLAIN_KINDS.has(f.kind) && !f.name.startsWith('token_') && has(v, f.name)) stored[f.name] = v[f.name];

  if (role.type === 'vm') {
    for (const [single, plural] of [
      ['bound_zone', 'bound_zones'],
      ['bound_region', 'bound_regions'],
      ['bound_instance_group', 'bound_instance_groups'],
    ] as const) {
      if (has(v, single) && has(v, plural)) fail(plural, `cannot specify both "${single}" and "${plural}"`, [single]);
      else if (has(v, plural)) role[plural] = canonicalSet(list(v, plural));
      else if (has(v, single) && String(v[single]).trim() !== '') role[plural] = canonicalSet([...role[plural], String(v[single])]);
    }
    if (has(v, 'bound_labels')) {
      const { labels, invalid } = parseLabels(list(v, 'bound_labels'));
      if (invalid.length > 0) {
        fail('bound_labels', `invalid labels given: [${invalid.map((s) => JSON.stringify(s)).join(' ')}] (each label must be key:value, key starting with a lower-case letter)`);
      } else role.bound_labels = sortedLabels(labels);
    }
  }
  warnings.push(...checkStoredRole(role, opts, opts.problems));
  if (opts.problems && opts.problems.length > 0) throw new FieldProblemsError(opts.problems);
  return { role, warnings };
}

/**
 * Whole-role validation (after writes and edits); returns warnings, throws on errors (or, with
 * `problems`, records each with its field and goes on).
 */
function checkStoredRole(role: StoredRole, opts: Pick<RoleWriteOptions, 'mountMaxTtl' | 'mountDefaultTtl' | 'engineRules'> = {}, problems?: FieldProblem[]): string[] {
  const warnings: string[] = [];
  const fail = problemSink(problems);
  // Vault refuses "*" beside other accounts on iam roles only (path_role.go); on a gce role it
  // compares "*" literally. The engine treats "*" as any account for both types, so it refuses the
  // mix on vm roles too, as its own rule.
  if (role.bound_service_accounts.includes('*') && role.bound_service_accounts.length > 1) {
    if (role.type === 'iam') fail('bound_service_accounts', `cannot provide service account wildcard '*' (for all service accounts) with other service accounts`);
    else if (opts.engineRules) {
      fail(
        'bound_service_accounts',
        `cannot provide service account wildcard '*' (for all service accounts) with other service accounts (a rule of keyward's embedded engine for vm roles; Vault accepts it)`,
      );
    }
  }
  if (role.type === 'iam') {
    if (role.bound_service_accounts.length === 0) {
      fail('bound_service_accounts', 'IAM role type must have at least one service account (field "bound_service_accounts"; use "*" for any)');
    }
    if (role.max_jwt_exp > MAX_JWT_EXP_LIMIT) fail('max_jwt_exp', `max_jwt_exp cannot be more than 60 minutes (got ${role.max_jwt_exp} seconds)`);
  } else {
    if (role.bound_instance_groups.length > 0 && role.bound_zones.length === 0 && role.bound_regions.length === 0) {
      fail('bound_instance_groups', 'region or zone information must be specified if an instance group is given (set "bound_zones" or "bound_regions")', [
        'bound_zones',
        'bound_regions',
      ]);
    }
    if (role.bound_zones.length > 0 && role.bound_regions.length > 0) {
      warnings.push('Given both bound_zones and bound_regions: bound_regions will be ignored at login');
    }
  }
  if (role.token_max_ttl > 0 && role.token_ttl > role.token_max_ttl) fail('token_ttl', 'ttl should be shorter than max_ttl', ['token_max_ttl']);
  const mountMax = opts.mountMaxTtl ?? 0;
  if (mountMax > 0 && role.token_period > mountMax) {
    fail('token_period', `'period' of '${formatGoDuration(role.token_period)}' is greater than the backend's maximum lease TTL of '${formatGoDuration(mountMax)}'`);
  }
  if (mountMax > 0 && role.token_max_ttl > mountMax) {
    warnings.push("token_max_ttl is greater than the backend mount's maximum TTL value; issued tokens' max TTL value will be truncated");
  }
  if ((opts.mountDefaultTtl ?? 0) > 0 && role.token_ttl > (opts.mountDefaultTtl ?? 0) && mountMax > 0 && role.token_ttl > mountMax) {
    warnings.push("token_ttl is greater than the backend mount's maximum TTL value; issued tokens' TTL will be truncated");
  }
  return warnings;
}

/**
 * The role read response (5.1), from the field table: role_id, type and the type's stored fields,
 * except those a read leaves out when they hold their `readAbsent` value (max_jwt_exp 0, empty
 * bound_* lists); the deprecated token names only for roles written with them.
 */
export function roleReadShape(r: StoredRole): Record<string, unknown> {
  const out: Record<string, unknown> = { role_id: r.role_id, type: r.type };
  const values = r as unknown as Record<string, unknown>;
  for (const f of storedRoleFields(r.type)) {
    const v = values[f.name];
    if (f.readAbsent !== undefined && JSON.stringify(v) === JSON.stringify(f.readAbsent)) continue;
    out[f.name] = f.kind === 'labels' ? sortedLabels(v as Record<string, string>) : Array.isArray(v) ? [...(v as unknown[])] : v;
  }
  for (const { name } of TOKEN_ALIASES) {
    const v = r.legacy[name];
    if (!isEmpty(v)) out[name] = Array.isArray(v) ? [...v] : v;
  }
  return out;
}

/** A stored zero value: undefined, 0, "", an empty list or map. */
const isEmpty = (v: unknown): boolean =>
  v === undefined || v === 0 || v === '' || (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && v !== null && Object.keys(v).length === 0);

function requireType(role: StoredRole, want: RoleType, attr: string): void {
  if (role.type !== want) {
    throw bad(`role is type '${role.type}', cannot edit attribute '${attr}' (expected role type: '${want}')`);
  }
}

function requireSome(add: string[], remove: string[]): void {
  if (add.length === 0 && remove.length === 0) throw bad('must provide at least one value to add or remove (fields "add", "remove")');
}

/** role/:name/service-accounts: (current ∪ add) − remove, kept sorted, then re-validated. */
export function applyServiceAccountEdit(role: StoredRole, add: string[], remove: string[]): { role: StoredRole; warnings: string[] } {
  requireType(role, 'iam', 'service_accounts');
  const a = canonicalList(add);
  const r = new Set(canonicalList(remove));
  requireSome(a, [...r]);
  const next = structuredClone(role);
  next.bound_service_accounts = canonicalSet([...role.bound_service_accounts, ...a]).filter((s) => !r.has(s));
  return { role: next, warnings: checkStoredRole(next) };
}

/** role/:name/labels: add key:value items (replacing existing keys), remove keys (missing is fine). */
export function applyLabelEdit(role: StoredRole, add: string[], remove: string[]): { role: StoredRole; warnings: string[] } {
  requireType(role, 'vm', 'labels');
  const a = canonicalList(add);
  const r = canonicalList(remove);
  requireSome(a, r);
  const { labels, invalid } = parseLabels(a);
  if (invalid.length > 0) throw bad(`given invalid labels to add: [${invalid.map((s) => JSON.stringify(s)).join(' ')}] (expected key:value)`);
  const next = structuredClone(role);
  const merged = { ...role.bound_labels, ...labels };
  for (const k of r) delete merged[k];
  next.bound_labels = sortedLabels(merged);
  return { role: next, warnings: checkStoredRole(next) };
}

/**
 * Canonical read form of a desired role (server defaults filled), for diffing against a live read.
 * With `problems`, every broken rule is reported (a FieldProblemsError), not only the first.
 */
export function canonicalRoleRead(values: RoleWriteValues, roleId = '', problems?: FieldProblem[]): Record<string, unknown> {
  const { role } = applyRoleWrite(undefined, values, { newRoleId: roleId, problems });
  const out = roleReadShape(role);
  delete out.role_id;
  return out;
}
