// Refresh of keyward_cloud_auth_backend: one sys/auth read, the config, one LIST of the mount's
// roles (keyward's carries their data) and, where the LIST did not, bounded parallel GETs of the
// roles that matter (those in state; every role with exclusive_roles or right after an import).
// Spellings in state are kept where they mean the same.

import { mapLimit } from '../../reconcile/pool';
import type { Diagnostic, ObjectValue, ReadResult } from '../plugin/contract';
import { refreshConfig } from './config-values';
import { refreshMount } from './mount-values';
import type { KeywardProviderContext } from './context';
import { refreshRole } from './role-values';
import { bool, isObject } from './values';

/** Imported state carries only the path; its accessor is null until the first read (never after). */
export const isImported = (state: ObjectValue): boolean => state.accessor === null;

export async function readBackend(ctx: KeywardProviderContext, state: ObjectValue): Promise<ReadResult> {
  const client = ctx.client;
  if (!client) return { state };
  const mounts = await client.sys.listAuthMounts();
  let path = String(state.path);
  let mount = mounts.get(path);
  const diagnostics: Diagnostic[] = [];
  // A move keeps the mount's accessor (sys/remount). When the mount is gone from the path in state
  // but a cloud mount with the same accessor is elsewhere, it moved: a move whose completion could
  // not be confirmed (its status lost) or one made by hand. The resource follows it rather than
  // dropping out of state, where the next plan would refuse to create what already exists.
  if (!mount && typeof state.accessor === 'string' && state.accessor !== '') {
    const found = [...mounts].find(([, m]) => m.type === 'cloud' && m.accessor === state.accessor);
    if (found) {
      diagnostics.push({
        severity: 'warning',
        summary: `auth/${path} is now at auth/${found[0]}`,
        detail: `The mount with accessor ${state.accessor} moved to auth/${found[0]} (sys/remount keeps the accessor); the state follows it. A configuration that still says path = ${JSON.stringify(path)} moves it back.`,
      });
      [path, mount] = found;
    }
  }
  if (!mount || mount.type !== 'cloud') return { state: null };
  const imported = isImported(state);
  const api = client.cloud(path);
  const out: ObjectValue = { ...state, path, accessor: mount.accessor ?? '' };
  refreshMount(state, mount, out);

  const priorConfig = isObject(state.config) ? state.config : null;
  if (priorConfig || imported) out.config = refreshConfig(priorConfig, (await api.readConfig()) ?? {});

  const priorRoles = isObject(state.roles) ? state.roles : {};
  const keyOf = new Map(Object.keys(priorRoles).map((k) => [k.toLowerCase(), k]));
  const everyRole = imported || bool(state.exclusive_roles);
  // keyward's LIST carries every role's data (key_info); a role it does not carry is read (Vault).
  const listed = await api.listRolesWithData();
  const wanted = [...listed.keys()].filter((n) => everyRole || keyOf.has(n));
  const read = await mapLimit(wanted, ctx.parallelism, async (name) => ({ name, data: listed.get(name) ?? (await api.readRole(name)) }));
  const roles: ObjectValue = {};
  for (const { name, data } of read) {
    if (!data) continue;
    const key = keyOf.get(name) ?? name;
    const prior = priorRoles[key];
    roles[key] = refreshRole(key, isObject(prior) ? prior : undefined, data);
  }
  out.roles = roles;
  return { state: out, ...(diagnostics.length > 0 ? { diagnostics } : {}) };
}
