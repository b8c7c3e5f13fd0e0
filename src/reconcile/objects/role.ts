// The role's one decision, shared by the CLI's diff/apply and the provider's role resources (nested
// roles of keyward_cloud_auth_backend and keyward_cloud_auth_role): canonical comparison, the
// planned action, the write body and the requests that carry it out. path_role.go merges a write
// into the stored role, so an update sends only the changed fields; a role's type cannot change in
// place, so a new type deletes the role and creates it again (with a new role_id).

import type { ServerDialect } from '../../client/dialect/server-dialect';
import type { Json } from '../model';
import { sameValue } from '../model';
import { roleWriteBody } from '../canonical';

export type RoleAction = 'no-op' | 'create' | 'update' | 'replace' | 'delete';

export interface RoleDecision {
  action: RoleAction;
  /** Canonical fields an update changes (every field on create and replace; none on no-op and delete). */
  changed: string[];
  /** The role write (POST auth/<mount>/role/<name>); absent on no-op and delete. */
  body?: Record<string, unknown>;
}

/** What deleting a role costs, said the same way by every plan that deletes or replaces one. */
export const ROLE_DELETE_COST = 'Every token issued through it stops renewing (renewal re-checks the role) and logins to it fail.';

/**
 * Canonical role fields before (the server's, or the state's; undefined: none) and after (the
 * declaration's; undefined: the role goes) -> the action and its write.
 */
export function roleDecision(before: Readonly<Record<string, Json>> | undefined, after: Readonly<Record<string, Json>> | undefined): RoleDecision {
  if (!after) return { action: before ? 'delete' : 'no-op', changed: [] };
  if (!before) return roleWriteFor('create', after, Object.keys(after));
  if (!sameValue(before.type, after.type)) return roleWriteFor('replace', after, Object.keys(after));
  const changed = Object.keys(after).filter((f) => !sameValue(after[f], before[f]));
  return roleWriteFor(changed.length === 0 ? 'no-op' : 'update', after, changed);
}

/** The decision of a role the declaration no longer holds (destroy, removal from a backend's roles). */
export const roleDeletion = (): RoleDecision => ({ action: 'delete', changed: [] });

/** The write of a planned action: the whole role on create and replace, the changed fields on update. */
export function roleWriteFor(action: RoleAction, after: Readonly<Record<string, Json>>, changed: readonly string[]): RoleDecision {
  if (action === 'no-op' || action === 'delete') return { action, changed: [] };
  const fields = action === 'update' ? changed.filter((f) => f in after) : Object.keys(after);
  return { action, changed: [...fields], body: roleWriteBody(Object.fromEntries(fields.map((f) => [f, after[f]!]))) };
}

/** The requests of a role client that carrying out a decision needs (the client's cloud(mount) API). */
export interface RoleWriter {
  deleteRole(name: string): Promise<void>;
  writeRole(name: string, body: Record<string, unknown>): Promise<string[]>;
}

/** Carries out a decision: the delete of a replace lands before the create. Resolves to the server's warnings. */
export async function applyRoleDecision(api: RoleWriter, name: string, d: RoleDecision): Promise<string[]> {
  if (d.action === 'delete' || d.action === 'replace') await api.deleteRole(name);
  return d.body ? api.writeRole(name, d.body) : [];
}

/** The decision creates the role (a create, or a replace's second half): its role_id is new, to be read back. */
export const createsRole = (d: RoleDecision): boolean => d.action === 'create' || d.action === 'replace';

/**
 * `*` in a vm role's bound_service_accounts on Vault and OpenBao: the real plugin
 * (vault-plugin-auth-gcp authorizer_gce.go, v0.19.1) compares the VM's service account with each
 * entry literally; the wildcard exists only on the iam path. So `*` on a vm role matches no VM:
 * a lock-out, although Vault's docs (and the seed, which the engine keeps) say it allows any.
 */
export const VM_WILDCARD_LOCKOUT = 'on Vault and OpenBao `*` on a vm role is a literal: no VM matches; list the service accounts';

/** What happens to a change with an `error` problem: planned and labelled for review, never written. */
export const APPLY_REFUSES = 'keyward apply and the Terraform provider refuse to write it (nothing is written)';

export interface RoleServerProblem {
  /** error: the plan would write the lock-out (apply refuses it); warning: the role already has it on the server. */
  severity: 'error' | 'warning';
  field: 'bound_service_accounts';
  message: string;
}

const vmWildcard = (f: Readonly<Record<string, Json>> | undefined): boolean =>
  f !== undefined && f.type === 'vm' && Array.isArray(f.bound_service_accounts) && f.bound_service_accounts.includes('*');

/**
 * What the server's own rules say of a declared role (canonical fields; `before` the server's, or
 * the refreshed state's; undefined: no role yet). On the engine (keyward dialect) nothing: `*`
 * allows any VM there, as the seed says. Toward Vault or OpenBao a vm role with `*` is an error
 * when the plan would write it, and a warning when the server already holds it (refusing then would
 * block every other change of the stack without unlocking anything). An error is never written:
 * the CLI's plans show it labelled `locks-out` and exit with the review-rule code, `keyward apply`
 * refuses it (server-rules.ts), and the provider fails terraform plan on it
 * (terraform/resources/role-server-rules.ts).
 */
export function roleServerProblem(
  dialect: ServerDialect,
  before: Readonly<Record<string, Json>> | undefined,
  after: Readonly<Record<string, Json>> | undefined,
): RoleServerProblem | undefined {
  if (dialect === 'keyward' || !vmWildcard(after)) return undefined;
  if (vmWildcard(before)) {
    return { severity: 'warning', field: 'bound_service_accounts', message: `${VM_WILDCARD_LOCKOUT} (the role already holds it on the server: its VMs cannot log in now)` };
  }
  return { severity: 'error', field: 'bound_service_accounts', message: VM_WILDCARD_LOCKOUT };
}
