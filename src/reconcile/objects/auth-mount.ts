import type { Json } from '../model';
import { namedList } from '../named-list';
import { ROLE_DELETE_COST } from './role';

// The auth mount's decisions shared by the CLI's diff/apply and the provider: what destroy leaves
// behind, and what a move (sys/remount) does to the sessions issued through the mount.

/**
 * Destroying a backend whose mount still holds roles the stack never managed: disabling the mount
 * would delete those roles, and resetting its config (credentials "" switches Vault to ambient
 * credentials, gcp_config.go) would break their logins. So the mount and its config stay as they are.
 */
export interface MountDestroy {
  /** Disable the mount (it holds nothing but what the stack managed). */
  disable: boolean;
  /** Why the mount and its config are kept (absent when disabled). */
  kept?: string;
}

export function mountDestroy(path: string, foreignRoles: readonly string[]): MountDestroy {
  if (foreignRoles.length === 0) return { disable: true };
  const n = foreignRoles.length;
  return { disable: false, kept: `auth/${path} holds ${n} role${n === 1 ? '' : 's'} not managed by this stack; the mount and its config are left as they are` };
}

/**
 * Vault's remount (vault/auth.go remountCredential; api-docs/system/remount) revokes every lease and
 * token issued through the moved auth mount. Every rendering of a move says so.
 */
export function moveWarning(from: string, to: string, rotates = false): string {
  const base = `moving auth/${from} to auth/${to} (sys/remount) revokes every token and lease issued through the mount: clients logged in through it must log in again, at the new path. Its config, roles and accessor are kept.`;
  return rotates ? `${base} ${ROTATION_AFTER_MOVE}` : base;
}

/**
 * Replacing a mount (a replace-forcing field such as `local`, or Terraform's `-replace=`) disables
 * it and enables it again: Vault deletes everything under it, so its config and roles are written
 * again and the roles get new role_ids. Every plan of a mount replace says what that costs.
 */
export function mountReplaceWarning(roles: readonly string[]): string {
  const base =
    'replacing the mount disables it and enables it again: every token and lease issued through it is revoked, and its config and roles are deleted with it and written again (the roles with new role_ids).';
  if (roles.length === 0) return base;
  return `${base} Roles deleted and created again: ${namedList(roles, 100)}. For each: ${ROLE_DELETE_COST}`;
}

/**
 * Vault Enterprise's rotation manager de-registers a moved mount's root rotation (a known issue,
 * 1.19 onward, "workaround: none"); a config write with the rotation fields registers it again.
 */
export const ROTATION_AFTER_MOVE =
  "The config declares root rotation: Vault Enterprise de-registers a moved mount's root rotation, so the config's rotation fields are written again after the move.";

/**
 * The rotation fields written again after a move (canonical config fields), or undefined when the
 * config declares no rotation. A schedule goes with its window (checked together by Vault).
 */
export function rotationRewrite(config: Readonly<Record<string, Json>>): Record<string, Json> | undefined {
  const period = typeof config.rotation_period === 'number' && config.rotation_period > 0;
  const schedule = typeof config.rotation_schedule === 'string' && config.rotation_schedule !== '';
  if (!period && !schedule) return undefined;
  const out: Record<string, Json> = period
    ? { rotation_period: config.rotation_period! }
    : { rotation_schedule: config.rotation_schedule!, rotation_window: config.rotation_window ?? 0 };
  if (config.disable_automated_rotation === true) out.disable_automated_rotation = true;
  return out;
}
