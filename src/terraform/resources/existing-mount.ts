// keyward_cloud_auth_backend never writes onto a mount it does not hold: a create on a path the
// server already uses is refused at plan and again at apply (made in between, or the one a
// create_before_destroy replace has not destroyed yet). Writing onto an existing cloud mount would
// overwrite its description, config and roles silently, so the error says how to import it (as
// keyward_cloud_auth_role and keyward_snapshot_auto_config do).

import { DialectDetectionError } from '../../client/dialect/detect';
import { VaultClientError } from '../../client/errors';
import { namedList } from '../../reconcile/named-list';
import type { Diagnostic } from '../plugin/contract';
import type { KeywardProviderContext } from './context';
import { createBeforeDestroyNote } from './held-object';
import { errorAt } from './values';

/** The refusal of a create over the mount `existing` at auth/<path>. */
export function mountExists(path: string, existing: { type: string }): Diagnostic {
  if (existing.type !== 'cloud')
    return errorAt(['path'], `auth/${path} is already a mount of type ${existing.type}, not cloud`, 'Choose another path for this backend, or disable that mount first.');
  return errorAt(
    ['path'],
    `auth/${path} already exists on the server`,
    `It is not in this configuration's state, and creating it would overwrite its description, config and roles. Import it to manage it: in a cdktf stack \`backend.importFrom(${JSON.stringify(path)})\` on the CloudAuthBackend (\`keyward import --mount ${path}\` writes it); in HCL \`terraform import keyward_cloud_auth_backend.<name> ${path}\` or an import block: import { to = keyward_cloud_auth_backend.<name>  id = ${JSON.stringify(path)} }. Or choose another path. ${createBeforeDestroyNote('mount')} A replace whose destroy kept the mount (it holds roles this stack never managed) stops here too: delete those roles first.`,
  );
}

/** At plan: the refusal of a create on a path the server already uses, if it does. */
export async function existingMount(ctx: KeywardProviderContext, path: string): Promise<Diagnostic[]> {
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
  return existing ? [mountExists(path, existing)] : [];
}

/**
 * At plan, the create half of a replace of this resource's own mount: the destroy half deletes the
 * declared roles and keeps a mount that holds roles this stack never declared (destroyBackend,
 * objects/auth-mount.ts mountDestroy), so the create half would then find the mount and stop,
 * after the declared roles were deleted and before anything was created again. Refused here,
 * before anything is written. `declared`: the configuration's role names (undefined while unknown).
 */
export async function replaceKeepsMount(ctx: KeywardProviderContext, path: string, declared: readonly string[] | undefined): Promise<Diagnostic[]> {
  if (!ctx.client || declared === undefined) return [];
  let onServer: string[];
  try {
    if (!(await ctx.client.sys.listAuthMounts()).has(path)) return [];
    onServer = await ctx.client.cloud(path).listRoles();
  } catch {
    // Unreadable now: apply's own guard (the create over an existing mount) still refuses.
    return [];
  }
  const mine = new Set(declared.map((n) => n.toLowerCase()));
  const foreign = onServer.filter((n) => !mine.has(n.toLowerCase())).sort();
  if (foreign.length === 0) return [];
  const shown = namedList(foreign, 10);
  return [
    errorAt(
      ['path'],
      `auth/${path} cannot be replaced: it holds ${foreign.length} role${foreign.length === 1 ? '' : 's'} this stack never declared (${shown})`,
      `A replace destroys the backend first: its declared roles would be deleted and the mount kept for those roles, and the create half would then find the mount and stop, leaving the declared roles deleted. Nothing was written. Delete those roles, or declare them in this backend, then replace it; or keep local as it was.`,
    ),
  ];
}
