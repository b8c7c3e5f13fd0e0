// A role of keyward_cloud_auth_backend (one element of the `roles` map): its attribute schema,
// validation with the manifest's zod schema, and the plan / refresh rules over the reconciler's
// canonical role fields (desiredRoleFields, liveRoleFields, finishRole). What apply sends is the
// shared role decision's (reconcile/objects/role.ts).

import { desiredRoleFields, finishRole, liveRoleFields } from '../../reconcile/canonical';
import type { Json } from '../../reconcile/model';
import { roleDecision, type RoleDecision } from '../../reconcile/objects/role';
import type { RoleType } from '../../schema/cloud-role';
import { fieldProblemsOf } from '../../schema/field-problems';
import { objectNamePattern, roleSchema } from '../../schema/manifest';
import { deepFreeze } from '../plugin/deep-freeze';
import { UNKNOWN, type AttributePath, type Diagnostic, type ObjectValue, type Value } from '../plugin/contract';
import { problemDiagnostics } from './field-diagnostics';
import { persistedRoleValidity } from './role-validity-file';
import { ROLE_ATTRS, ROLE_NAMES as NAMES } from './role-attributes';
import { errorAt, hasUnknown, pathOf, pick, plannedDeclared, refreshedDeclared, showPath } from './values';

/** Why a role name is refused (the backend's `roles` keys and the role resource's `name`), or undefined. */
export function roleNameProblem(name: string): string | undefined {
  if (objectNamePattern.test(name) && name === name.toLowerCase()) return undefined;
  return `Invalid role name ${JSON.stringify(name)}: lower-case letters, digits, "_", "-" or ".", starting and ending with a letter or digit`;
}

/** Every attribute of a role object, null. */
export function emptyRole(): ObjectValue {
  return Object.fromEntries(['type', 'role_id', ...NAMES].map((n) => [n, null]));
}

/** Manifest-shaped role (the shape roleSchema and desiredRoleFields take). */
export function roleManifest(name: string, role: ObjectValue): Record<string, unknown> {
  return { name, type: role.type, ...pick(role, NAMES) };
}

/**
 * Canonical fields of a known role (server defaults filled); throws ManifestValueError. Memoized by
 * name and values: one Terraform command asks for the same roles several times (validate, refresh,
 * plan, apply; config and prior usually spelled alike), and at 10,000 roles the schema parse is
 * most of the provider's work. Results are frozen, since callers share them; failures are not kept.
 */
export function roleCanonical(name: string, role: ObjectValue): Readonly<Record<string, Json>> {
  const manifest = roleManifest(name, role);
  return canonicalOf(name, manifest, shapeOf(role) === 'plain' ? JSON.stringify(manifest) : undefined);
}

/** roleCanonical of a manifest-shaped role; `key` (its JSON) memoizes, undefined does not. */
function canonicalOf(name: string, manifest: Record<string, unknown>, key: string | undefined): Readonly<Record<string, Json>> {
  if (key === undefined) return desiredRoleFields(`roles["${name}"]`, manifest);
  const hit = canonicalCache.get(key);
  if (hit) return hit;
  const fields = deepFreeze(desiredRoleFields(`roles["${name}"]`, manifest));
  if (canonicalCache.size >= CANONICAL_CACHE_MAX) canonicalCache.clear();
  canonicalCache.set(key, fields);
  return fields;
}

const CANONICAL_CACHE_MAX = 100_000;
const canonicalCache = new Map<string, Readonly<Record<string, Json>>>();

/**
 * 'unknown' when v is or holds an unknown; 'plain' when JSON.stringify says all there is to say
 * about it (no NaN or Infinity either); else 'other'. One walk: at 10,000 roles every walk of every
 * role costs tens of milliseconds, per validate and per plan.
 */
function shapeOf(v: Value | undefined): 'unknown' | 'plain' | 'other' {
  if (v === UNKNOWN) return 'unknown';
  if (typeof v === 'number') return Number.isFinite(v) ? 'plain' : 'other';
  if (v === null || typeof v !== 'object') return 'plain';
  let shape: 'plain' | 'other' = 'plain';
  for (const x of Array.isArray(v) ? v : Object.values(v)) {
    const s = shapeOf(x);
    if (s === 'unknown') return s;
    if (s === 'other') shape = s;
  }
  return shape;
}

/**
 * Validation with the manifest's schema and the server's rules, as attribute-path diagnostics: one
 * per failing value, all of them at once. Values not known yet are skipped (plan checks them).
 */
export function validateRole(base: AttributePath, name: string, role: ObjectValue): Diagnostic[] {
  const shape = shapeOf(role);
  if (shape === 'unknown') return role.type === UNKNOWN ? [] : checkRole(base, name, role, knownManifest(name, role), undefined);
  const manifest = roleManifest(name, role);
  // Validate and plan both check every role; a role found valid once is valid (same name, same
  // values), in this process or, through the validity file, in an earlier one of the same build.
  const key = shape === 'plain' ? JSON.stringify(manifest) : undefined;
  if (key !== undefined && validRoles.has(key)) return [];
  const persisted = persistedRoleValidity();
  const known = key !== undefined && persisted?.has(key) === true;
  const diagnostics = known ? [] : checkRole(base, name, role, manifest, key);
  if (key !== undefined && diagnostics.length === 0) {
    if (validRoles.size >= CANONICAL_CACHE_MAX) validRoles.clear();
    validRoles.add(key);
    if (!known) persisted?.add(key);
  }
  return diagnostics;
}

const validRoles = new Set<string>();

/** The manifest of a role's known fields (a field holding an unknown anywhere is left out). */
function knownManifest(name: string, role: ObjectValue): Record<string, unknown> {
  const known: ObjectValue = { ...role };
  for (const n of NAMES) if (hasUnknown(role[n])) known[n] = null;
  return roleManifest(name, known);
}

/**
 * Two passes, each reporting every field it refuses: the manifest's schema (types, enums, fields
 * of the other role type), then the server's write rules (FieldProblem per field) over the fields
 * the first pass accepted, so one bad value is one diagnostic and nothing waits for a next round.
 */
function checkRole(base: AttributePath, name: string, role: ObjectValue, manifest: Record<string, unknown>, key: string | undefined): Diagnostic[] {
  const out: Diagnostic[] = [];
  const reported = new Set<string>();
  const r = roleSchema.safeParse(manifest);
  if (!r.success) {
    for (const i of r.error.issues) {
      if (i.code === 'unrecognized_keys') {
        for (const k of i.keys) {
          reported.add(k);
          out.push(errorAt([...base, k], `Invalid ${showPath([...base, k])}: does not apply to ${String(role.type)} roles`, `Given: type = ${JSON.stringify(role.type)}.`));
        }
        continue;
      }
      const field = typeof i.path[0] === 'string' ? i.path[0] : undefined;
      if (field !== undefined && (reported.has(field) || hasUnknown(role[field]))) continue;
      if (field !== undefined) reported.add(field);
      const path = field === undefined || field === 'name' ? base : pathOf(base, i.path.slice(0, 1));
      const given =
        field !== undefined && field !== 'name' && role[field] !== null && role[field] !== undefined ? `Given: ${showPath(path)} = ${JSON.stringify(role[field])}.` : undefined;
      out.push(errorAt(path, `Invalid ${showPath(path)}: ${i.message}`, given));
    }
    if (reported.has('type')) return out;
  }
  const rest = Object.fromEntries(Object.entries(manifest).filter(([k]) => !reported.has(k)));
  try {
    canonicalOf(name, rest, reported.size === 0 ? key : undefined);
  } catch (e) {
    const problems = fieldProblemsOf(e) ?? [{ field: '', message: e instanceof Error ? e.message.replace(/^roles\["[^"]*"\]: /, '') : String(e) }];
    out.push(...problemDiagnostics(base, problems, { values: role, reported, attributeOf: (f) => (f === 'type' || NAMES.includes(f) ? f : undefined) }));
  }
  return out;
}

/** The planned role: the config, in the prior's spelling where it means the same; role_id kept unless new. */
export function planRole(name: string, config: ObjectValue, prior: ObjectValue | undefined): ObjectValue {
  const planned: ObjectValue = { ...emptyRole(), ...config };
  const sameType = prior !== undefined && prior.type === config.type;
  planned.role_id = sameType && prior.role_id !== null ? prior.role_id : UNKNOWN;
  if (hasUnknown(config) || !sameType) return planned;
  const c = roleCanonical(name, config);
  const p = roleCanonical(name, prior);
  for (const n of NAMES) planned[n] = plannedDeclared(ROLE_ATTRS[n], config[n], prior[n], c[n], p[n]);
  return planned;
}

/** The server's defaults of a role type, canonical (what a null field means). */
export function roleDefaults(type: RoleType): Readonly<Record<string, Json>> {
  let d = defaultsByType.get(type);
  if (!d) defaultsByType.set(type, (d = deepFreeze(finishRole({}, type))));
  return d;
}
const defaultsByType = new Map<RoleType, Readonly<Record<string, Json>>>();

/** State from a live read: prior spellings kept where they mean the same, server defaults null unless declared. */
export function refreshRole(name: string, prior: ObjectValue | undefined, data: Record<string, unknown>): ObjectValue {
  const live = liveRoleFields(data);
  const type = live.type as RoleType;
  const sameType = prior !== undefined && prior.type === type;
  const priorCanon = sameType ? roleCanonical(name, prior) : undefined;
  const defaults = roleDefaults(type);
  const out = emptyRole();
  out.type = type;
  out.role_id = typeof data.role_id === 'string' ? data.role_id : null;
  for (const n of NAMES) if (n in live) out[n] = refreshedDeclared(ROLE_ATTRS[n], sameType ? prior[n] : undefined, priorCanon?.[n], live[n], defaults[n]);
  return out;
}

/** The shared decision (objects/role.ts) from the prior role's state to the planned one. */
export function roleDecisionOf(name: string, prior: ObjectValue | undefined, planned: ObjectValue): RoleDecision {
  return roleDecision(prior ? roleCanonical(name, prior) : undefined, roleCanonical(name, planned));
}

/** The planned role as it will be in state after apply (role_id filled in). */
export function appliedRole(planned: ObjectValue, roleId: Value): ObjectValue {
  return { ...planned, role_id: planned.role_id === UNKNOWN ? roleId : planned.role_id };
}
