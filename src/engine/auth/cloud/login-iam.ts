// iam login: a service-account JWT (self-signed or provider-signed via signJwt), max_jwt_exp,
// account lookup, bound projects and accounts; or, with allow_vm_inference, an instance identity
// token logging in through the instance's service account.

import { Errors } from '../../../schema/errors';
import { effectiveMetadata, type StoredCloudConfig } from '../../../schema/cloud-config';
import type { StoredRole } from '../../../schema/cloud-role-write';
import type { IdpClient, ServiceAccountInfo } from '../../../idp-client/client';
import type { LoginResult } from '../../token/login-result';
import type { VerifiedJwt } from './jwt';
import { accountBound, groupAliases, lookupServiceAccount, selectMetadata, tokenSettings } from './login-common';
import { verifyInstance } from './login-vm';

/** Internal token data key: the instance (compute_engine claims, JSON) an iam token was inferred from. */
export const VM_INFERENCE = 'vm_inference';

/** Leeway on max_jwt_exp (clients often mint exp = now + max_jwt_exp exactly). */
export const MAX_JWT_EXP_LEEWAY = 30;

const list = (xs: readonly string[]) => `[${xs.join(' ')}]`;

/** Project and account bindings of an iam role (also re-run at renewal). */
export function authorizeIam(role: StoredRole, sa: ServiceAccountInfo): void {
  if (role.bound_projects.length > 0 && !role.bound_projects.includes(sa.projectId)) {
    throw Errors.badRequest(`service account ${JSON.stringify(sa.email)} not in bound projects ${list(role.bound_projects)}`);
  }
  if (!accountBound(role, sa)) {
    throw Errors.badRequest(`service account ${sa.email} (id: ${sa.uniqueId}) is not authorized for role (not in bound_service_accounts)`);
  }
}

export function iamMetadata(roleName: string, sa: ServiceAccountInfo): Record<string, string> {
  return { project_id: sa.projectId, role: roleName, service_account_id: sa.uniqueId, service_account_email: sa.email };
}

export async function loginIam(client: IdpClient, config: StoredCloudConfig, role: StoredRole, roleName: string, jwt: VerifiedJwt, nowMs: number): Promise<LoginResult> {
  if (jwt.computeEngine) {
    // Instance identity token (provider-signed, compute_engine claims): only through inference.
    if (!role.allow_vm_inference) {
      throw Errors.badRequest(
        `role ${JSON.stringify(roleName)} does not accept instance identity tokens: allow_vm_inference is false (log in with a service-account JWT, or set allow_vm_inference=true)`,
      );
    }
    await verifyInstance(client, jwt.computeEngine);
    // The instance token's lifetime is fixed by the provider, so max_jwt_exp does not apply.
  } else {
    const maxExp = role.max_jwt_exp;
    const left = jwt.exp - nowMs / 1000;
    if (left > maxExp + MAX_JWT_EXP_LEEWAY) {
      throw Errors.badRequest(
        `role requires that service account JWTs expire within ${maxExp} seconds, but this JWT expires in ${Math.round(left)} seconds: request a new JWT with a shorter 'exp'`,
      );
    }
  }
  const sa = await lookupServiceAccount(client, jwt.sub);
  authorizeIam(role, sa);
  const metadata = selectMetadata(iamMetadata(roleName, sa), effectiveMetadata(config.iam_metadata, 'iam'));
  return {
    displayName: sa.email,
    settings: tokenSettings(role),
    metadata,
    alias: { name: config.iam_alias === 'unique_id' ? sa.uniqueId : role.role_id, metadata },
    groupAliases: role.add_group_aliases ? await groupAliases(client, sa.projectId) : undefined,
    // Renewal re-checks that the role still allows inference and that the instance still runs.
    internal: jwt.computeEngine ? { [VM_INFERENCE]: JSON.stringify(jwt.computeEngine) } : undefined,
  };
}
