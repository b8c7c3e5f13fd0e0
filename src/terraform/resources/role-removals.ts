// Warnings for the roles a plan removes. Roles are nested in keyward_cloud_auth_backend, so
// Terraform shows deleting, renaming or retyping one as an in-place update ("0 to destroy"):
// these diagnostics say, per role, that it goes and what that costs (its tokens stop renewing).

import { namedList } from '../../reconcile/named-list';
import { ROLE_DELETE_COST as TOKENS } from '../../reconcile/objects/role';
import type { Diagnostic, ObjectValue } from '../plugin/contract';
import { roleCanonical } from './role-values';
import { hasUnknown, isObject } from './values';

/** How many role names a warning spells out before "and N more". */
const NAMED = 100;

const names = (list: readonly string[]): string => namedList(list, NAMED);

/** Canonical fields of a known role without its name, for spotting a rename; undefined when unknown or invalid. */
function fingerprint(role: ObjectValue): string | undefined {
  if (hasUnknown(role)) return undefined;
  try {
    return JSON.stringify(roleCanonical('x', role));
  } catch {
    return undefined;
  }
}

/**
 * The warnings of a plan from `prior` roles to `config` roles on auth/<path>. `declared`: the role
 * names the configuration held at the last apply (undefined = unknown): a role in state but never
 * declared was pulled in by an exclusive_roles refresh, and is deleted for that reason.
 */
export function roleRemovalWarnings(path: string, prior: ObjectValue, config: ObjectValue, declared: readonly string[] | undefined): Diagnostic[] {
  const gone = Object.keys(prior).filter((k) => !(k in config));
  const added = Object.keys(config).filter((k) => !(k in prior));
  const out: Diagnostic[] = [];
  if (gone.length === 0) return retyped(path, prior, config);

  // A removed role whose fields a new role repeats exactly is most likely a rename.
  const byFields = new Map<string, string[]>();
  for (const k of added) {
    const f = isObject(config[k]) ? fingerprint(config[k] as ObjectValue) : undefined;
    if (f !== undefined) byFields.set(f, [...(byFields.get(f) ?? []), k]);
  }
  const renamed = new Map<string, string>();
  for (const k of gone) {
    const f = isObject(prior[k]) ? fingerprint(prior[k] as ObjectValue) : undefined;
    const to = f === undefined ? undefined : byFields.get(f)?.shift();
    if (to !== undefined) renamed.set(k, to);
  }
  const undeclared = gone.filter((k) => declared !== undefined && !declared.includes(k) && !renamed.has(k));
  const deleted = gone.filter((k) => !renamed.has(k) && !undeclared.includes(k));

  for (const k of deleted) {
    out.push({
      severity: 'warning',
      summary: `Role ${JSON.stringify(k)} will be deleted from auth/${path}`,
      detail: `roles[${JSON.stringify(k)}] is no longer in the configuration: apply deletes the role. ${TOKENS} Terraform shows this as an update of the backend, not a destroy.`,
    });
  }
  for (const [from, to] of renamed) {
    out.push({
      severity: 'warning',
      summary: `Role ${JSON.stringify(from)} will be deleted and ${JSON.stringify(to)} created (a rename) on auth/${path}`,
      detail: `A role cannot be renamed in place: apply deletes ${JSON.stringify(from)} and creates ${JSON.stringify(to)} with a new role_id. For ${JSON.stringify(from)}: ${TOKENS}`,
      attribute: ['roles', { key: to }],
    });
  }
  if (undeclared.length > 0) {
    out.push({
      severity: 'warning',
      summary: `${undeclared.length === 1 ? 'Role' : `${undeclared.length} roles`} ${names(undeclared)} on auth/${path} will be deleted: not declared, and exclusive_roles is true`,
      detail: `exclusive_roles = true deletes every role on the mount that the configuration does not declare. For each: ${TOKENS}`,
      attribute: ['exclusive_roles'],
    });
  }
  out.push(...retyped(path, prior, config));
  return out;
}

/** A role whose type changes is deleted and created again. */
function retyped(path: string, prior: ObjectValue, config: ObjectValue): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const k of Object.keys(config)) {
    const before = prior[k];
    const after = config[k];
    if (!isObject(before) || !isObject(after) || typeof after.type !== 'string' || before.type === after.type) continue;
    out.push({
      severity: 'warning',
      summary: `Role ${JSON.stringify(k)} will be replaced on auth/${path}: type ${String(before.type)} -> ${after.type}`,
      detail: `A role's type cannot change in place: apply deletes the ${String(before.type)} role and creates a ${after.type} role with a new role_id. For the old role: ${TOKENS}`,
      attribute: ['roles', { key: k }, 'type'],
    });
  }
  return out;
}
