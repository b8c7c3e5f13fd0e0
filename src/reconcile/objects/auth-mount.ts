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
export function moveWarning(from: string, to: string): string {
  return `moving auth/${from} to auth/${to} (sys/remount) revokes every token and lease issued through the mount: clients logged in through it must log in again, at the new path. Its config, roles and accessor are kept.`;
}
