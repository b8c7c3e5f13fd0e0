// keyward_cloud_auth_backend: one cloud auth mount with its config and its roles nested (a map
// keyed by role name), so 10,000 roles are one Terraform resource. Plan compares canonically and
// keeps the prior spelling of equal values; see docs/terraform-provider.md for the contract.

import { DiagnosticsError, UNKNOWN, type Diagnostic, type ObjectValue, type PlanRequest, type PlanResult, type ResourceHandler } from '../plugin/contract';
import { applyBackend, destroyBackend } from './backend-apply';
import { readBackend } from './backend-read';
import { backendSchema } from './cloud-auth-backend-schema';
import { MOUNT_NAMES } from './mount-attributes';
import { MOUNT_PATH, planMount, validateMount } from './mount-values';
import { configCanonical, configSecretDiagnostics, planConfig, validateConfig } from './config-values';
import { rotationConfigured } from '../../schema/cloud-config-fields';
import { credentialsWarning, decideCredentials } from './config-credentials';
import { moveWarning } from '../../reconcile/objects/auth-mount';
import { roleServerDiagnostics } from './role-server-rules';
import { configServerDiagnostics } from './config-server-rules';
import type { KeywardProviderContext } from './context';
import { roleRemovalWarnings } from './role-removals';
import { planRole, roleNameProblem, validateRole } from './role-values';
import { errorAt, hasUnknown, isObject } from './values';
import { retainedWarnings } from './retained';
import { DialectDetectionError } from '../../client/dialect/detect';
import { VaultClientError } from '../../client/errors';

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
  if (!config) return { planned: null, diagnostics: retainedWarnings(`auth/${String(req.prior?.path)}`, 'mount, its config and its roles stay', req.prior) };
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
  if (req.prior && !replace && req.prior.path !== config.path) {
    diagnostics.push({
      severity: 'warning',
      summary: `auth/${String(req.prior.path)} moves to auth/${String(config.path)}`,
      detail: `${moveWarning(String(req.prior.path), String(config.path), isObject(config.config) && !hasUnknown(config.config) && rotationConfigured(configCanonical(config.config)))} To recreate the mount instead, use terraform apply -replace.`,
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
  const moved = req.prior !== null && !replace && req.prior.path !== config.path;
  if ((!req.prior || moved) && typeof config.path === 'string') diagnostics.push(...(await existingMount(ctx, config.path)));
  if (diagnostics.some((d) => d.severity === 'error')) throw new DiagnosticsError(diagnostics);
  if (prior && isObject(prior.roles) && isObject(config.roles))
    diagnostics.push(...roleRemovalWarnings(String(config.path), prior.roles, config.roles, declaredRoles(req.priorPrivate)));
  return { planned, requiresReplace: immutable.map((n) => [n]), diagnostics };
}

/**
 * A create on a path the server already uses: refused at plan, not at apply. Writing onto an
 * existing cloud mount would overwrite its description, config and roles silently, so the error
 * says how to import it (as keyward_cloud_auth_role and keyward_snapshot_auto_config do).
 */
async function existingMount(ctx: KeywardProviderContext, path: string): Promise<Diagnostic[]> {
  let existing: { type: string } | undefined;
  try {
    existing = ctx.client ? (await ctx.client.sys.listAuthMounts()).get(path) : undefined;
  } catch (e) {
    // An unreachable or failing server is apply's to report (it retries); an answer that says the
    // token, the address or the dialect is wrong is reported now, once, in plain words.
    if (e instanceof DialectDetectionError) return [errorAt(['path'], 'Cannot tell which dialect the server speaks', e.message)];
    if (VaultClientError.is(e) && e.status !== 0 && !e.retryable) return [errorAt(['path'], `Could not read the auth mounts of ${e.address ?? 'the server'}`, e.message)];
    return [];
  }
  if (!existing) return [];
  if (existing.type !== 'cloud') {
    return [errorAt(['path'], `auth/${path} is already a mount of type ${existing.type}, not cloud`, 'Choose another path for this backend, or disable that mount first.')];
  }
  return [
    errorAt(
      ['path'],
      `auth/${path} already exists on the server`,
      `It is not in this configuration's state, and creating it would overwrite its description, config and roles. Import it to manage it: in a cdktf stack \`backend.importFrom(${JSON.stringify(path)})\` on the CloudAuthBackend (\`keyward import --mount ${path}\` writes it); in HCL \`terraform import keyward_cloud_auth_backend.<name> ${path}\` or an import block: import { to = keyward_cloud_auth_backend.<name>  id = ${JSON.stringify(path)} }. Or choose another path.`,
    ),
  ];
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
  async plan(ctx, req) {
    const r = await planBackend(ctx, req);
    return { ...r, plannedPrivate: r.plannedPrivate ?? req.priorPrivate };
  },
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
