// iam login: a service-account JWT (self-signed or provider-signed via signJwt), max_jwt_exp,
// account lookup, bound projects and accounts. An instance identity token presented to an iam role
// is taken as any other JWT, as the real plugin does (docs/engine.md): held to max_jwt_exp, its
// subject looked up as a service account, allow_vm_inference not consulted.

import { Errors } from '../../../schema/errors';
import { effectiveMetadata, type StoredCloudConfig } from '../../../schema/cloud-config';
import type { StoredRole } from '../../../schema/cloud-role-write';
import type { IdpClient, ServiceAccountInfo } from '../../../idp-client/client';
import type { LoginResult } from '../../token/login-result';
import type { VerifiedJwt } from './jwt';
import { accountBound, groupAliases, lookupServiceAccount, selectMetadata, tokenSettings } from './login-common';

/**
 * Internal token data key: the instance (compute_engine claims, JSON) an iam token was inferred
 * from. Logins no longer set it (instance tokens are not inferred, see loginIam); renewal still
 * honours it on tokens an earlier engine issued.
 */
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
  // The seed is silent on instance tokens at iam roles, so the engine follows the plugin CI pins
  // (vault-plugin-auth-gcp v0.19.1, path_login.go): parseAndValidateJwt reads the compute_engine
  // claims only for gce roles, so pathIamLogin's allow_gce_inference refusal and its "skipping
  // custom expiry check" (both on GceMetadata != nil) never apply to an iam role: an instance
  // token is held to max_jwt_exp like any JWT and inference is not consulted.
  const maxExp = role.max_jwt_exp;
  const left = jwt.exp - nowMs / 1000;
  if (left > maxExp + MAX_JWT_EXP_LEEWAY) {
    throw Errors.badRequest(
      `role requires that service account JWTs expire within ${maxExp} seconds, but this JWT expires in ${Math.round(left)} seconds: request a new JWT with a shorter 'exp'`,
    );
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
  };
}
