// keyward_cloud_auth_backend: one cloud auth mount with its config and its roles nested (a map
// keyed by role name), so 10,000 roles are one Terraform resource. Plan compares canonically and
// keeps the prior spelling of equal values; see docs/terraform-provider.md for the contract.

import { DiagnosticsError, UNKNOWN, type Diagnostic, type ObjectValue, type PlanRequest, type PlanResult, type ResourceHandler } from '../plugin/contract';
import { applyBackend, destroyBackend } from './backend-apply';
import { readBackend } from './backend-read';
import { backendSchema } from './cloud-auth-backend-schema';
import { MOUNT_NAMES } from './mount-attributes';
import { MOUNT_PATH, mountCanonical, planMount, validateMount } from './mount-values';
import { configCanonical, configSecretDiagnostics, planConfig, validateConfig } from './config-values';
import { credentialsWarning, decideCredentials } from './config-credentials';
import { mountMove } from '../../reconcile/objects/mount-move';
import { roleServerDiagnostics } from './role-server-rules';
import { configServerDiagnostics } from './config-server-rules';
import type { KeywardProviderContext } from './context';
import { roleRemovalWarnings } from './role-removals';
import { planRole, roleNameProblem, validateRole } from './role-values';
import { errorAt, hasUnknown, isObject } from './values';
import { retainedWarnings } from './retained';
import { replacesHeld, retainedReplaceDetail, withHeld } from './held-object';
import { decideMount } from '../../reconcile/objects/decide';
import { existingMount, replaceKeepsMount } from './existing-mount';

export { backendSchema };

export function validateBackend(config: ObjectValue): Diagnostic[] {
  const out: Diagnostic[] = [];
  const path = config.path;
  if (typeof path === 'string' && !MOUNT_PATH.test(path))
    out.push(errorAt(['path'], 'Invalid path: must be a mount path like "cloud" or "team/cloud" (no leading or trailing "/")'));
  out.push(...validateMount(config));
  if (isObject(config.config)) out.push(...validateConfig(['config'], config.config));
  if (isObject(config.roles)) {
    for (const [name, role] of Object.entries(config.roles)) {
      const base = ['roles', { key: name }];
      const problem = roleNameProblem(name);
      if (problem) out.push(errorAt(base, problem));
      else if (isObject(role)) out.push(...validateRole(base, name, role));
    }
  }
  return out;
}

export async function planBackend(ctx: KeywardProviderContext, req: PlanRequest): Promise<PlanResult> {
  const config = req.config;
  // A destroy carries the private data on: destroyBackend reads the roles declared at the last
  // apply from it, so a role made by hand since (pulled into state by an exclusive refresh) stays.
  if (!config)
    return {
      planned: null,
      diagnostics: retainedWarnings(`auth/${String(req.prior?.path)}`, 'mount, its config and its roles stay', req.prior),
      plannedPrivate: req.priorPrivate,
    };
  const diagnostics = validateBackend(config);
  if (diagnostics.some((d) => d.severity === 'error')) {
    // Everything wrong in one plan: the secret's environment problems beside the invalid values.
    if (isObject(config.config)) diagnostics.push(...configSecretDiagnostics(ctx, ['config'], config.config));
    throw new DiagnosticsError(diagnostics);
  }
  // A path change is a move (sys/remount keeps the config and the roles, and revokes the tokens
  // issued through the mount); only a field the server cannot change in place (`local`) replaces it.
  const planned: ObjectValue = { ...config };
  const immutable = planMount(config, req.prior, planned);
  const replace = immutable.length > 0;
  const prior = replace ? null : req.prior;
  planned.accessor = prior && typeof prior.accessor === 'string' ? prior.accessor : UNKNOWN;
  // What counts as a move, and what it costs, are the shared decisions (objects/mount-move.ts, decide.ts).
  const declaredConfig = isObject(config.config) && !hasUnknown(config.config) ? configCanonical(config.config) : undefined;
  const move =
    req.prior && typeof config.path === 'string' ? mountMove({ to: config.path, recorded: String(req.prior.path), replaced: replace, config: declaredConfig }) : undefined;
  if (move && req.prior) {
    const decision = decideMount(knownMount(config), mountCanonical(req.prior), { move });
    diagnostics.push({
      severity: 'warning',
      summary: `auth/${move.from} moves to auth/${move.to}`,
      detail: `${decision?.warnings.join(' ') ?? ''} To recreate the mount instead, use terraform apply -replace.`,
      attribute: ['path'],
    });
  }

  if (isObject(config.config)) {
    const r = planConfig(ctx, ['config'], config.config, prior && isObject(prior.config) ? prior.config : null);
    planned.config = r.planned;
    diagnostics.push(...r.diagnostics);
    diagnostics.push(...(await configServerDiagnostics(ctx, ['config'], config.config)));
    if (!r.diagnostics.some((d) => d.severity === 'error') && typeof config.path === 'string' && !hasUnknown(r.planned)) {
      const priorConfig = prior && isObject(prior.config) ? prior.config : null;
      // The mount is read where it is now: a move happens at apply.
      const at = req.prior && !replace ? String(req.prior.path) : config.path;
      const decision = await decideCredentials(ctx, ctx.client, at, config.config, priorConfig, r.planned, r.planned);
      diagnostics.push(...credentialsWarning(['config'], config.config, decision));
    }
  }
  // A map block is never null (absent = {}); a null here only comes from a hand-made request.
  planned.roles = config.roles === UNKNOWN ? UNKNOWN : {};
  if (isObject(config.roles)) {
    const priorRoles = prior && isObject(prior.roles) ? prior.roles : {};
    const roles: ObjectValue = {};
    for (const [name, role] of Object.entries(config.roles)) {
      const before = priorRoles[name];
      roles[name] = isObject(role) ? planRole(name, role, isObject(before) ? before : undefined) : role;
      if (isObject(role)) diagnostics.push(...(await roleServerDiagnostics(ctx, name, role, isObject(before) ? before : undefined, ['roles', name])));
    }
    planned.roles = roles;
  }
  if (typeof config.path === 'string') {
    // A create, unless it is the create half of a replace of this resource's own mount (held-object.ts).
    const replacing = req.prior === null ? replacesHeld(req.priorPrivate, config.path) : undefined;
    if (replacing?.retained)
      diagnostics.push(errorAt(['path'], `auth/${config.path} cannot be replaced: retain_on_destroy keeps it`, retainedReplaceDetail(`auth/${config.path}`)));
    else if ((!req.prior && !replacing) || move) diagnostics.push(...(await existingMount(ctx, config.path)));
    else if (replacing) diagnostics.push(...(await replaceKeepsMount(ctx, config.path, isObject(config.roles) ? Object.keys(config.roles) : undefined)));
  }
  if (diagnostics.some((d) => d.severity === 'error')) throw new DiagnosticsError(diagnostics);
  if (prior && isObject(prior.roles) && isObject(config.roles))
    diagnostics.push(...roleRemovalWarnings(String(config.path), prior.roles, config.roles, declaredRoles(req.priorPrivate)));
  if (replace && req.prior) diagnostics.push(replaceWarning(req.prior, config, immutable));
  // The mount this resource holds, for the create half of a replace (planned with no prior).
  const plannedPrivate = req.prior ? withHeld(req.priorPrivate, String(req.prior.path), req.prior) : req.priorPrivate;
  return { planned, requiresReplace: immutable.map((n) => [n]), diagnostics, plannedPrivate };
}

/** The declared mount's canonical fields, or none while one is unknown (the decision then names no field change). */
const knownMount = (config: ObjectValue) => (MOUNT_NAMES.some((n) => hasUnknown(config[n])) ? {} : mountCanonical(config));

/**
 * A replace of the backend (a replace-forcing mount field) deletes the mount with its config and
 * roles and creates them again: Terraform shows the resource's replace, not what each role loses.
 */
function replaceWarning(prior: ObjectValue, config: ObjectValue, fields: readonly string[]): Diagnostic {
  const roles = isObject(prior.roles) ? Object.keys(prior.roles).sort() : [];
  const decision = decideMount(knownMount(config), mountCanonical(prior), { roles });
  return {
    severity: 'warning',
    summary: `auth/${String(prior.path)} will be replaced (${fields.join(', ')} cannot change in place)${roles.length ? ` with its ${roles.length} role${roles.length === 1 ? '' : 's'}` : ''}`,
    detail: decision?.warnings.join(' ') ?? '',
    attribute: [fields[0] ?? 'path'],
  };
}

export function importedBackend(id: string): ObjectValue {
  if (!MOUNT_PATH.test(id))
    throw new DiagnosticsError([{ severity: 'error', summary: `Cannot import ${JSON.stringify(id)}: the import id is the mount path, like "cloud" or "team/cloud"` }]);
  // accessor null marks a fresh import: the first read brings the config and every role.
  return { path: id, ...Object.fromEntries(MOUNT_NAMES.map((n) => [n, null])), accessor: null, exclusive_roles: null, retain_on_destroy: null, config: null, roles: {} };
}

export const cloudAuthBackend: ResourceHandler<KeywardProviderContext> = {
  typeName: 'keyward_cloud_auth_backend',
  schema: backendSchema,
  validate: (config) => validateBackend(config),
  read: (ctx, state) => readBackend(ctx, state),
  plan: (ctx, req) => planBackend(ctx, req),
  async apply(ctx, req) {
    if (!req.planned) return req.prior ? destroyBackend(ctx, req.prior, declaredRoles(req.plannedPrivate)) : { state: null };
    if (hasUnknown(req.config?.path ?? null)) throw new DiagnosticsError([errorAt(['path'], 'path must be known at apply')]);
    const config = req.config ?? req.planned;
    const result = await applyBackend(ctx, req.prior, req.planned, config);
    return { ...result, private: declaredPrivate(config) };
  },
  import: async (_ctx, id) => importedBackend(id),
};

/**
 * The role names the configuration declared at the last apply, kept in the resource's private
 * state: with exclusive_roles, refresh pulls undeclared roles into state (so a plan removes them),
 * and destroy must still leave a role made by hand after the last deploy alone.
 */
function declaredPrivate(config: ObjectValue): Uint8Array {
  const roles = config.roles !== null && typeof config.roles === 'object' && !Array.isArray(config.roles) ? Object.keys(config.roles) : [];
  return Buffer.from(JSON.stringify({ declaredRoles: roles }), 'utf8');
}

function declaredRoles(priv: Uint8Array | undefined): string[] | undefined {
  if (!priv || priv.length === 0) return undefined;
  try {
    const v = JSON.parse(Buffer.from(priv).toString('utf8')) as { declaredRoles?: unknown };
    return Array.isArray(v.declaredRoles) ? v.declaredRoles.map(String) : undefined;
  } catch {
    return undefined;
  }
}
