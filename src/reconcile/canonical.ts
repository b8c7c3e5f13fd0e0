// Canonical field values for every managed kind, from the manifest (desired) and from a read
// (live), so that equal meaning compares equal: durations as seconds, comma strings as lists, sets
// sorted, host CIDRs as /32 or /128, labels as a sorted map, aliases folded, server defaults filled.

import { canonicalCidr } from '../schema/cidr';
import { MOUNT_FIELDS } from '../schema/auth-mount-fields';
import { configWriteShape, canonicalConfig, IAM_METADATA_DEFAULT, VM_METADATA_DEFAULT } from '../schema/cloud-config';
import { CLOUD_CONFIG_FIELDS, cloudConfigProblems } from '../schema/cloud-config-fields';
import { ROLE_FIELDS, canonicalSet, sortedLabels, roleWriteShape, type RoleType } from '../schema/cloud-role';
import { canonicalRoleRead } from '../schema/cloud-role-write';
import { DurationError, parseDurationSeconds } from '../schema/duration';
import { ApiError } from '../schema/errors';
import { fieldProblemsOf, type FieldProblem } from '../schema/field-problems';
import { parseFields } from '../schema/fields';
import { SNAPSHOT_FIELDS, isStorageType, type StorageType } from '../schema/snapshot-config';
import { canonicalSnapshotConfig, normalizeSnapshotConfigRead } from '../schema/snapshot-validate';
import type { Json } from './model';

/** A desired object the server would refuse; `problems` names the field of each broken rule when known. */
export class ManifestValueError extends Error {
  constructor(
    message: string,
    readonly problems?: FieldProblem[],
  ) {
    super(message);
  }
}

const rethrow = (where: string, e: unknown): never => {
  if (ApiError.isApiError(e)) throw new ManifestValueError(`${where}: ${e.errors.join('; ')}`, fieldProblemsOf(e));
  throw e;
};

// ---- roles ---------------------------------------------------------------------------------

/** Canonical (non-deprecated) role fields of a type, "type" included. */
export function roleFieldNames(type: RoleType): string[] {
  return ROLE_FIELDS.filter((f) => !f.aliasOf && f.name !== 'name' && (f.appliesTo === 'both' || f.appliesTo === type)).map((f) => f.name);
}
const ROLE_SPEC = new Map(ROLE_FIELDS.map((f) => [f.name, f]));
/** Lists compared as sets although the server keeps their order: the order has no meaning. */
const ORDER_FREE = new Set(['token_policies']);

/**
 * Fills defaults and normalizes the values of a role's read shape. `read`: the data is a server's
 * read, where an absent field means what the field table's `readAbsent` says (a stored zero value).
 */
export function finishRole(data: Record<string, unknown>, type: RoleType, read = false): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const name of roleFieldNames(type)) {
    const spec = ROLE_SPEC.get(name)!;
    let v = data[name] ?? (read && spec.readAbsent !== undefined ? spec.readAbsent : spec.default);
    if (name === 'type') v = type;
    if (v === undefined) continue;
    switch (spec.kind) {
      case 'commaList': {
        const items = Array.isArray(v) ? v.map(String) : String(v).split(',');
        if (name === 'token_bound_cidrs') v = canonicalSet(items.map((c) => safeCidr(c)));
        else if (spec.set || ORDER_FREE.has(name)) v = canonicalSet(items);
        else v = items.map((s) => s.trim()).filter((s) => s !== '');
        break;
      }
      case 'labels':
        v = sortedLabels(labelMap(v));
        break;
      case 'duration':
        v = parseDurationSeconds(v);
        break;
      case 'int':
        v = Number(v);
        break;
      case 'bool':
        v = v === true || v === 'true';
        break;
      default:
        v = String(v);
    }
    out[name] = v as Json;
  }
  return out;
}

function safeCidr(c: string): string {
  try {
    return canonicalCidr(c);
  } catch {
    return c.trim();
  }
}

/** Labels given as a map, "k:v" items or a comma string. */
export function labelMap(v: unknown): Record<string, string> {
  if (v && typeof v === 'object' && !Array.isArray(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]));
  const items = Array.isArray(v) ? v.map(String) : String(v ?? '').split(',');
  const out: Record<string, string> = {};
  for (const item of items.map((s) => s.trim()).filter((s) => s !== '')) {
    const i = item.indexOf(':');
    if (i > 0) out[item.slice(0, i)] = item.slice(i + 1);
  }
  return out;
}

/** A manifest role (loose values, aliases allowed) in canonical form; throws naming the role. */
export function desiredRoleFields(where: string, role: Record<string, unknown>): Record<string, Json> {
  const body: Record<string, unknown> = { ...role };
  delete body.name;
  if (body.bound_labels && typeof body.bound_labels === 'object' && !Array.isArray(body.bound_labels)) {
    body.bound_labels = Object.entries(body.bound_labels as Record<string, string>).map(([k, v]) => `${k}:${v}`);
  }
  try {
    // Every problem at once, each with its field: coercion failures, then the write rules.
    const problems: FieldProblem[] = [];
    const { values } = parseFields(roleWriteShape, body, problems);
    // canonicalRoleRead gives the role's read shape, where a stored zero value is left out.
    return finishRole(canonicalRoleRead(values, '', problems), role.type as RoleType, true);
  } catch (e) {
    return rethrow(where, e);
  }
}

/** A role read (GET auth/<mount>/role/<name>) in canonical form. */
export function liveRoleFields(data: Record<string, unknown>): Record<string, Json> {
  const type = (data.type === 'vm' ? 'vm' : 'iam') as RoleType;
  return finishRole(data, type, true);
}

/** Canonical fields back to a role write body (labels as key:value items). */
export function roleWriteBody(fields: Record<string, Json>): Record<string, unknown> {
  const body: Record<string, unknown> = { ...fields };
  if (fields.bound_labels && typeof fields.bound_labels === 'object') {
    body.bound_labels = Object.entries(fields.bound_labels as Record<string, string>).map(([k, v]) => `${k}:${v}`);
  }
  return body;
}

// ---- auth config ---------------------------------------------------------------------------

/** Fields the engine's config write schema (cloud-config.ts) canonicalizes; the rest by kind here. */
const ENGINE_SHAPED = new Set(['iam_alias', 'iam_metadata', 'vm_alias', 'vm_metadata', 'custom_endpoint']);

/** Fills defaults and normalizes a config read shape (credential identifiers are not compared). */
export function finishConfig(data: Record<string, unknown>): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const f of CLOUD_CONFIG_FIELDS) {
    if (f.secret) continue;
    const v = data[f.name];
    switch (f.kind) {
      case 'list': {
        const items = Array.isArray(v) ? v.map(String) : typeof v === 'string' ? v.split(',') : [...(f.default as readonly string[])];
        out[f.name] = canonicalSet(items);
        break;
      }
      case 'map': {
        const m = (v && typeof v === 'object' && !Array.isArray(v) ? v : {}) as Record<string, unknown>;
        out[f.name] = Object.fromEntries(
          Object.keys(m)
            .filter((k) => typeof m[k] === 'string' && (m[k] as string) !== '')
            .sort()
            .map((k) => [k, m[k] as string]),
        );
        break;
      }
      case 'duration': {
        // A stored 0 reads as 0 (identity_token_ttl never sent): the table's default says what unset is.
        out[f.name] = v === undefined || v === null || v === '' ? (f.default as number) : parseDurationSeconds(typeof v === 'number' ? Math.round(v) : v);
        break;
      }
      case 'bool':
        out[f.name] = v === undefined || v === null ? (f.default as boolean) : v === true || v === 'true';
        break;
      default:
        // Unset string fields may read back as "" or false (Vault's zero values): the default.
        out[f.name] = typeof v === 'string' && v.trim() !== '' ? v.trim() : (f.default as string);
    }
  }
  return out;
}

export function desiredConfigFields(where: string, config: Record<string, unknown>): Record<string, Json> {
  const engineShaped: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) {
    if (k === 'credentials') continue;
    (ENGINE_SHAPED.has(k) ? engineShaped : rest)[k] = v;
  }
  try {
    const { values } = parseFields(configWriteShape, engineShaped);
    const fields = finishConfig({ ...canonicalConfig(values as Parameters<typeof canonicalConfig>[0]), ...rest });
    const problems = cloudConfigProblems(fields, config.credentials !== undefined);
    if (problems.length > 0) throw new ManifestValueError(`${where}: ${problems.join('; ')}`);
    return fields;
  } catch (e) {
    if (e instanceof DurationError) throw new ManifestValueError(`${where}: ${e.message}`);
    return rethrow(where, e);
  }
}

export function liveConfigFields(data: Record<string, unknown>): Record<string, Json> {
  return finishConfig(data);
}

/** The default metadata lists, as sets: sent as "default" so the server keeps its marker. */
export function isDefaultMetadata(field: string, v: Json | undefined): boolean {
  const dflt = field === 'iam_metadata' ? IAM_METADATA_DEFAULT : VM_METADATA_DEFAULT;
  return Array.isArray(v) && JSON.stringify(v) === JSON.stringify(canonicalSet([...dflt]));
}

// ---- snapshot configs ----------------------------------------------------------------------

export function snapshotSecretFields(type: StorageType): string[] {
  return SNAPSHOT_FIELDS.filter((f) => f.secret && f.owner === type).map((f) => f.name);
}

export function desiredSnapshotFields(where: string, config: Record<string, unknown>): Record<string, Json> {
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) {
    if (k === 'name' || (v && typeof v === 'object' && 'secretRef' in v)) continue;
    body[k] = v;
  }
  try {
    return { ...canonicalSnapshotConfig(body) };
  } catch (e) {
    return rethrow(where, e);
  }
}

export function liveSnapshotFields(data: Record<string, unknown>): Record<string, Json> {
  if (!isStorageType(data.storage_type)) return { storage_type: String(data.storage_type ?? '') };
  return { ...normalizeSnapshotConfigRead(data) };
}

// ---- auth mounts ---------------------------------------------------------------------------

/** A mount's compared fields (type, then the mount field table) with defaults filled in. */
export function mountFields(type: string, m: Record<string, unknown>): Record<string, Json> {
  const out: Record<string, Json> = { type };
  for (const f of MOUNT_FIELDS) {
    const v = m[f.name];
    if (f.kind === 'duration') out[f.name] = v === undefined || v === null || v === '' ? (f.default as number) : parseDurationSeconds(v);
    else if (f.kind === 'bool') out[f.name] = v === undefined || v === null ? (f.default as boolean) : v === true || v === 'true';
    else out[f.name] = typeof v === 'string' && v !== '' ? v : (f.default as string);
  }
  return out;
}
