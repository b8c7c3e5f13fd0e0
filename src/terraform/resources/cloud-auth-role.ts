// keyward_cloud_auth_role: one role of a cloud auth backend per Terraform resource. Validation,
// canonical plan, refresh and the write body are the backend's nested roles' (role-values.ts), so a
// role means the same in either form; `backend`, `name` and `type` force a replace, which Terraform
// shows as a destroy. Import id: `<mount path>/<role name>`.

import { DiagnosticsError, type AttributePath, type Diagnostic, type ObjectValue, type PlanResult, type ResourceHandler } from '../plugin/contract';
import { roleResourceSchema as schema } from './cloud-auth-role-schema';
import { clientOf, type KeywardProviderContext } from './context';
import { MOUNT_PATH } from './mount-values';
import { mountRoles } from './role-listing';
import { replaceFields } from '../../reconcile/objects/decide';
import { applyRoleDecision, createsRole, roleDeletion, ROLE_DELETE_COST as TOKENS } from '../../reconcile/objects/role';
import { roleServerDiagnostics } from './role-server-rules';
import { appliedRole, emptyRole, planRole, refreshRole, roleDecisionOf, roleNameProblem, validateRole } from './role-values';
import { errorAt, hasUnknown } from './values';

const ROLE_KEYS = Object.keys(emptyRole());
// The identity (backend, name) and the role fields the field table says force a replace.
const FORCES_REPLACE = ['backend', 'name', ...replaceFields('role')];

/** The role part of the resource object (what role-values.ts works on). */
const roleOf = (o: ObjectValue): ObjectValue => Object.fromEntries(ROLE_KEYS.map((k) => [k, o[k] ?? null]));
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
const where = (o: ObjectValue) => `auth/${String(o.backend)}/role/${String(o.name)}`;

const badBackend = (backend: string) => `Invalid backend ${JSON.stringify(backend)}: must be a mount path like "cloud" or "team/cloud" (no leading or trailing "/")`;

/** One diagnostic per failing value, on its attribute; values known only after apply are checked at plan. */
function validate(config: ObjectValue): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (typeof config.backend === 'string' && !MOUNT_PATH.test(config.backend)) out.push(errorAt(['backend'], badBackend(config.backend)));
  const name = typeof config.name === 'string' ? config.name : undefined;
  const problem = name === undefined ? undefined : roleNameProblem(name);
  if (problem) out.push(errorAt(['name'], problem));
  out.push(...validateRole([], problem || name === undefined ? 'role' : name, roleOf(config)));
  return out;
}

/**
 * Creating a role the server already holds would overwrite it (it may belong to a backend's nested
 * `roles` or to another configuration): refuse, and say how to import it instead.
 */
async function refuseExisting(ctx: KeywardProviderContext, backend: string, name: string, atPlan: boolean): Promise<void> {
  let exists: boolean;
  try {
    // At plan, from the mount's listing (one LIST for every create); at apply, a GET of its own.
    const client = ctx.client;
    exists = client !== undefined && (atPlan ? await mountRoles(client, backend).exists(name) : (await client.cloud(backend).readRole(name)) !== undefined);
  } catch (e) {
    if (atPlan) return; // apply reports a server that cannot answer
    throw e;
  }
  if (!exists) return;
  const id = `${backend}/${name}`;
  throw new DiagnosticsError([
    errorAt(
      ['name'],
      `Role ${JSON.stringify(name)} already exists on auth/${backend}`,
      `It is not in this resource's state, and creating it would overwrite it. If no keyward_cloud_auth_backend declares it in \`roles\` (a role belongs in one place only), import it: \`terraform import keyward_cloud_auth_role.<name> ${id}\`, or an import block: import { to = keyward_cloud_auth_role.<name>  id = ${JSON.stringify(id)} }. Or choose another name.`,
    ),
  ]);
}

/** Warnings of a plan that deletes the role: what Terraform's "destroy" costs its tokens. */
function deletionWarnings(prior: ObjectValue, config: ObjectValue | null, replace: readonly string[]): Diagnostic[] {
  if (!config)
    return [
      {
        severity: 'warning',
        summary: `Role ${JSON.stringify(prior.name)} will be deleted from auth/${String(prior.backend)}`,
        detail: `Destroying this resource deletes ${where(prior)}. ${TOKENS}`,
      },
    ];
  if (replace.length === 0) return [];
  const what = replace.map((a) => `${a} ${String(prior[a])} -> ${hasUnknown(config[a]) ? '(known after apply)' : String(config[a])}`).join(', ');
  return [
    {
      severity: 'warning',
      summary: `Role ${JSON.stringify(prior.name)} on auth/${String(prior.backend)} will be replaced: ${what}`,
      detail: `A role's ${replace.join(' and ')} cannot change in place: apply deletes ${where(prior)} and creates the new role with a new role_id. For the old role: ${TOKENS}`,
      attribute: [replace[0]!],
    },
  ];
}

// Terraform plans the create half of a replace with a null prior and the first plan's private
// bytes: this marker tells that create (whose role the replace deletes first) from a fresh one.
const REPLACING = Buffer.from('{"replacing":true}', 'utf8');
const isReplacing = (priv: Uint8Array | undefined) => priv !== undefined && Buffer.from(priv).equals(REPLACING);

async function plan(ctx: KeywardProviderContext, prior: ObjectValue | null, config: ObjectValue | null, priorPrivate: Uint8Array | undefined): Promise<PlanResult> {
  if (!config) return { planned: null, diagnostics: prior ? deletionWarnings(prior, null, []) : [] };
  const diagnostics = validate(config);
  if (diagnostics.some((d) => d.severity === 'error')) throw new DiagnosticsError(diagnostics);
  const replace = prior ? FORCES_REPLACE.filter((a) => prior[a] !== config[a]) : [];
  const kept = replace.length > 0 ? null : prior;
  const name = typeof config.name === 'string' ? config.name : 'role';
  const planned: ObjectValue = { ...planRole(name, roleOf(config), kept ? roleOf(kept) : undefined), backend: config.backend, name: config.name };
  // A create (not the create half of a replace, whose role this resource deletes first).
  if (!prior && !isReplacing(priorPrivate) && typeof config.backend === 'string' && typeof config.name === 'string') await refuseExisting(ctx, config.backend, config.name, true);
  if (prior) diagnostics.push(...deletionWarnings(prior, config, replace));
  diagnostics.push(...(await roleServerDiagnostics(ctx, name, roleOf(config), kept ? roleOf(kept) : undefined, [])));
  if (diagnostics.some((d) => d.severity === 'error')) throw new DiagnosticsError(diagnostics);
  const requiresReplace: AttributePath[] = replace.map((a) => [a]);
  return { planned, requiresReplace, diagnostics, ...(replace.length > 0 ? { plannedPrivate: REPLACING } : {}) };
}

export const cloudAuthRole: ResourceHandler<KeywardProviderContext> = {
  typeName: 'keyward_cloud_auth_role',
  schema,
  validate,
  async read(ctx, state) {
    if (!ctx.client) return { state };
    const data = await mountRoles(ctx.client, String(state.backend)).read(String(state.name));
    if (!data) return { state: null };
    // An imported state has no type yet: every live field comes in, as on an import of the backend.
    const prior = typeof state.type === 'string' ? roleOf(state) : undefined;
    return { state: { ...refreshRole(String(state.name), prior, data as Record<string, unknown>), backend: state.backend, name: state.name } };
  },
  plan: (ctx, req) => plan(ctx, req.prior, req.config, req.priorPrivate),
  async apply(ctx, req) {
    const client = clientOf(ctx);
    const { prior, planned } = req;
    if (!planned) {
      if (!prior) return { state: null };
      try {
        mountRoles(client, String(prior.backend)).wrote(String(prior.name)); // before: a failed delete may still land
        await applyRoleDecision(client.cloud(String(prior.backend)), String(prior.name), roleDeletion());
      } catch (e) {
        return { state: prior, diagnostics: [errorAt(['name'], `Could not delete ${where(prior)}`, message(e))] };
      }
      return { state: null };
    }
    if (hasUnknown(planned.backend) || hasUnknown(planned.name)) throw new DiagnosticsError([errorAt(['name'], 'backend and name must be known at apply')]);
    const backend = String(planned.backend);
    const name = String(planned.name);
    const api = client.cloud(backend);
    const decision = roleDecisionOf(name, prior ? roleOf(prior) : undefined, roleOf(planned));
    try {
      if (!prior) await refuseExisting(ctx, backend, name, false);
      if (decision.action !== 'no-op') mountRoles(client, backend).wrote(name);
      const warnings = await applyRoleDecision(api, name, decision);
      const roleId = createsRole(decision) ? ((await api.readRole(name))?.role_id ?? null) : null;
      const state: ObjectValue = { ...planned, ...appliedRole(roleOf(planned), typeof roleId === 'string' ? roleId : null) };
      return { state, diagnostics: warnings.map((d) => ({ severity: 'warning' as const, summary: `${where(planned)}: the server warned`, detail: d })) };
    } catch (e) {
      if (e instanceof DiagnosticsError) return { state: prior, diagnostics: e.diagnostics };
      return { state: prior, diagnostics: [errorAt([], `Could not write ${where(planned)}`, message(e))] };
    }
  },
  async import(_ctx, id) {
    const cut = id.lastIndexOf('/');
    const backend = id.slice(0, cut);
    const name = id.slice(cut + 1);
    const problem = cut < 0 ? 'no "/"' : !MOUNT_PATH.test(backend) ? badBackend(backend) : roleNameProblem(name);
    if (problem)
      throw new DiagnosticsError([
        { severity: 'error', summary: `Cannot import ${JSON.stringify(id)}: the import id is <mount path>/<role name>, like "cloud/web" or "team/cloud/web"`, detail: problem },
      ]);
    return { ...emptyRole(), backend, name };
  },
};
