// Apply of keyward_cloud_auth_backend: exactly the planned change, in order (mount, config, roles
// with bounded parallelism; the client retries each request). Only roles whose canonical fields
// changed are written, so a no-op plan sends nothing. Destroy keeps a mount that still holds roles
// the stack never managed, with its config as it is (objects/auth-mount.ts).

import type { VaultClient } from '../../client/vault-client';
import { namedList } from '../../reconcile/named-list';
import { settleLimit } from '../../reconcile/pool';
import { UNKNOWN, type ApplyResult, type Diagnostic, type ObjectValue } from '../plugin/contract';
import { configCanonical, configWrite } from './config-values';
import { mountMove, type MountMove } from '../../reconcile/objects/mount-move';
import { mountDestroy } from '../../reconcile/objects/auth-mount';
import { decideCredentials } from './config-credentials';
import { clientOf, type KeywardProviderContext } from './context';
import { appliedRole, roleDecisionOf } from './role-values';
import { applyRoleDecision, createsRole, roleDeletion } from '../../reconcile/objects/role';
import { tuneChanges } from './mount-values';
import { bool, errorAt, isObject, showPath } from './values';
import { mountExists } from './existing-mount';

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Moves (as planned), enables or tunes the mount; resolves to its accessor. `absent`: a create found no mount there. */
async function ensureMount(
  client: VaultClient,
  prior: ObjectValue | null,
  planned: ObjectValue,
  move: MountMove | undefined,
  warnings: string[],
  absent: boolean,
): Promise<string> {
  const path = String(planned.path);
  if (move) warnings.push(...(await client.sys.remount(move.from, move.to)));
  const existing = absent ? undefined : (await client.sys.listAuthMounts()).get(path);
  const tune = tuneChanges(prior, planned);
  if (!existing) {
    const { description, ...config } = tuneChanges(null, planned);
    warnings.push(...(await client.sys.enableAuth(path, { type: 'cloud', description: description ?? '', local: planned.local === true, config })));
  } else if (existing.type !== 'cloud') {
    throw new Error(`auth/${path} is a mount of type ${existing.type}, not cloud`);
  } else if (Object.keys(tune).length > 0) {
    warnings.push(...(await client.sys.tune(path, tune)));
  }
  const accessor = existing?.accessor ?? (await client.sys.listAuthMounts()).get(path)?.accessor;
  return accessor ?? '';
}

export async function applyBackend(ctx: KeywardProviderContext, prior: ObjectValue | null, planned: ObjectValue, config: ObjectValue): Promise<ApplyResult> {
  const client = clientOf(ctx);
  const path = String(planned.path);
  const state: ObjectValue = { ...planned };
  const diagnostics: Diagnostic[] = [];
  const warnings: string[] = [];
  const warn = () => warnings.map((w) => ({ severity: 'warning' as const, summary: `auth/${path}: the server warned`, detail: w }));

  // 0. A create never writes onto a mount that exists: made since the plan, or the one a replace
  // has not removed (its destroy runs first unless create_before_destroy; it keeps a mount holding
  // roles never managed here). Nothing is written.
  if (!prior) {
    let existing;
    try {
      existing = (await client.sys.listAuthMounts()).get(path);
    } catch (e) {
      return { state: null, diagnostics: [errorAt(['path'], `Could not enable auth/${path}`, message(e))] };
    }
    if (existing) return { state: null, diagnostics: [mountExists(path, existing)] };
  }

  // 1. The mount: written only when new, moved or one of its own fields changed. The move is the
  // plan's (objects/mount-move.ts): this resource's prior path against its planned one.
  const declaredConfig = isObject(planned.config) ? configCanonical(planned.config) : undefined;
  const move = prior ? mountMove({ to: path, recorded: String(prior.path), config: declaredConfig }) : undefined;
  if (!prior || planned.accessor === UNKNOWN || move || Object.keys(tuneChanges(prior, planned)).length > 0) {
    try {
      const accessor = await ensureMount(client, prior, planned, move, warnings, !prior);
      state.accessor = planned.accessor === UNKNOWN ? accessor : planned.accessor;
    } catch (e) {
      // A failed move leaves the state at the old path; a failed enable or tune keeps the prior.
      // A move whose completion could not be confirmed keeps the prior state too (never null: the
      // resource stays), and the next refresh follows the mount by its accessor wherever it is.
      return {
        state: prior,
        diagnostics: [...warn(), errorAt(['path'], `Could not ${move ? `move auth/${move.from} to` : 'enable or tune'} auth/${path}`, message(e))],
      };
    }
  }

  // 2. The config.
  const priorConfig = prior && isObject(prior.config) ? prior.config : null;
  if (isObject(planned.config)) {
    try {
      const declared = config.config as ObjectValue;
      const decision = await decideCredentials(ctx, client, path, declared, priorConfig, planned.config, planned.config);
      const body = configWrite(ctx, ['config'], declared, priorConfig, planned.config, decision, move);
      if (body) warnings.push(...(await client.cloud(path).writeConfig(body)));
    } catch (e) {
      // DiagnosticsError from secrets carries its own path; the value is never in the message.
      const ds = (e as { diagnostics?: Diagnostic[] }).diagnostics;
      return {
        state: { ...state, config: priorConfig, roles: prior?.roles ?? {} },
        diagnostics: [...warn(), ...(ds ?? [errorAt(['config'], `Could not write auth/${path}/config`, message(e))])],
      };
    }
  }

  // 3. The roles: deletes, creates, replaces (delete + create of that role) and field updates.
  const api = client.cloud(path);
  const priorRoles = prior && isObject(prior.roles) ? prior.roles : {};
  const plannedRoles = isObject(planned.roles) ? planned.roles : {};
  // A created role's role_id is read back after every write: from one LIST on keyward (its
  // key_info carries the roles), else one GET per created role (Vault).
  type Op = { key: string; created: boolean; run: () => Promise<void> };
  const ops: Op[] = [];
  for (const key of Object.keys(priorRoles))
    if (!(key in plannedRoles)) ops.push({ key, created: false, run: async () => void (await applyRoleDecision(api, key.toLowerCase(), roleDeletion())) });
  for (const [key, role] of Object.entries(plannedRoles)) {
    const before = priorRoles[key];
    const decision = roleDecisionOf(key, isObject(before) ? before : undefined, role as ObjectValue);
    if (decision.action === 'no-op') continue;
    ops.push({ key, created: createsRole(decision), run: async () => void warnings.push(...(await applyRoleDecision(api, key.toLowerCase(), decision))) });
  }
  const written = await settleLimit(ops, ctx.parallelism, (op) => op.run());
  const errors = new Map<string, unknown>();
  written.forEach((r, i) => {
    if (!r.ok) errors.set(ops[i].key, r.error);
  });
  const created = ops.filter((op) => op.created && !errors.has(op.key)).map((op) => op.key);
  const roleIds = new Map<string, string>();
  if (created.length > 0) {
    let listed = new Map<string, { role_id?: unknown } | undefined>();
    try {
      listed = await api.listRolesWithData();
    } catch {
      // read each created role below instead
    }
    const ids = await settleLimit(created, ctx.parallelism, async (key) => {
      const name = key.toLowerCase();
      const read = listed.get(name) ?? (await api.readRole(name));
      return typeof read?.role_id === 'string' ? read.role_id : '';
    });
    ids.forEach((r, i) => (r.ok ? roleIds.set(created[i], r.value) : errors.set(created[i], r.error)));
  }
  const roles: ObjectValue = {};
  const failed = new Set(errors.keys());
  for (const [key, error] of errors) {
    const p = ['roles', { key }];
    diagnostics.push(errorAt(p, `Could not apply ${showPath(p)}`, message(error)));
  }
  for (const [key, role] of Object.entries(plannedRoles)) {
    // A failed role keeps its prior state (absent if it was new), so the next plan retries it.
    if (failed.has(key)) {
      if (key in priorRoles) roles[key] = priorRoles[key];
      continue;
    }
    roles[key] = appliedRole(role as ObjectValue, roleIds.get(key) ?? null);
  }
  for (const key of failed) if (!(key in plannedRoles)) roles[key] = priorRoles[key];
  state.roles = roles;
  return { state, diagnostics: [...warn(), ...diagnostics] };
}

/** Destroy: the declared roles and the config go; the mount too, unless it holds roles never managed here. */
export async function destroyBackend(ctx: KeywardProviderContext, prior: ObjectValue, declaredAtApply?: readonly string[]): Promise<ApplyResult> {
  if (bool(prior.retain_on_destroy)) return { state: null };
  const client = clientOf(ctx);
  const path = String(prior.path);
  if (!(await client.sys.listAuthMounts()).has(path)) return { state: null };
  const api = client.cloud(path);
  // Roles in state that the configuration never declared (pulled in by an exclusive refresh) stay.
  const inState = Object.keys(isObject(prior.roles) ? prior.roles : {});
  const declared = declaredAtApply ? inState.filter((k) => declaredAtApply.includes(k)) : inState;
  const results = await settleLimit(declared, ctx.parallelism, (key) => applyRoleDecision(api, key.toLowerCase(), roleDeletion()));
  const failures = results.flatMap((r, i) => (r.ok ? [] : [errorAt(['roles', { key: declared[i] }], `Could not delete role ${declared[i]}`, message(r.error))]));
  if (failures.length) return { state: prior, diagnostics: failures };
  const left = await api.listRoles();
  const outcome = mountDestroy(path, left);
  if (outcome.disable) {
    await client.sys.disableAuth(path);
    return { state: null };
  }
  return {
    state: null,
    diagnostics: [
      {
        severity: 'warning',
        summary: `auth/${path} kept: it holds roles this stack never managed`,
        detail: `${outcome.kept}. Roles left on the mount: ${namedList(left, 10, (n) => n)}. Delete them and the mount by hand if they are not needed.`,
        attribute: ['path'],
      },
    ],
  };
}
