// What iam and vm logins share: the role's token settings, metadata filtered by the config's key
// list, alias names, group aliases from the project ancestry, and provider-error mapping.

import { ApiError, Errors } from '../../../schema/errors';
import { IdpError } from '../../../idp-client/http';
import type { IdpClient, ServiceAccountInfo } from '../../../idp-client/client';
import type { StoredRole } from '../../../schema/cloud-role-write';
import type { TokenSettings } from '../../token/login-result';

export function tokenSettings(role: StoredRole): TokenSettings {
  return {
    policies: [...role.token_policies],
    ttl: role.token_ttl,
    maxTtl: role.token_max_ttl,
    explicitMaxTtl: role.token_explicit_max_ttl,
    period: role.token_period,
    numUses: role.token_num_uses,
    boundCidrs: [...role.token_bound_cidrs],
    noDefaultPolicy: role.token_no_default_policy,
    type: role.token_type,
  };
}

/** Keeps only the selected keys and drops empty values (all values strings). */
export function selectMetadata(all: Record<string, string>, keys: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of keys) if (all[k]) out[k] = all[k];
  return out;
}

/** 404 from the provider is the caller's problem (400); anything else fails closed with 500. */
export function providerFailure(e: unknown, notFound: string, other: string): ApiError {
  if (ApiError.isApiError(e)) return e;
  if (e instanceof IdpError && e.status === 404) return Errors.badRequest(notFound);
  return new ApiError('upstream', [`${other}: ${e instanceof Error ? e.message : String(e)}`]);
}

export async function lookupServiceAccount(client: IdpClient, id: string): Promise<ServiceAccountInfo> {
  let sa: ServiceAccountInfo;
  try {
    sa = await client.getServiceAccount(id);
  } catch (e) {
    throw providerFailure(e, `service account ${JSON.stringify(id)} not found (it was deleted or never existed)`, `could not look up service account ${JSON.stringify(id)}`);
  }
  if (sa.disabled) throw Errors.badRequest(`service account ${JSON.stringify(sa.email)} is disabled`);
  return sa;
}

/** Bound service accounts: "*" (any) or the account's email or unique id; none bound = any. */
export function accountBound(role: StoredRole, sa: ServiceAccountInfo): boolean {
  if (role.bound_service_accounts.length === 0) return true;
  if (role.bound_service_accounts.includes('*')) return true;
  return role.bound_service_accounts.includes(sa.email) || role.bound_service_accounts.includes(sa.uniqueId);
}

/** project-<id>, folder-<id>..., organization-<id> from the project upwards. */
export async function groupAliases(client: IdpClient, project: string): Promise<string[]> {
  try {
    const chain = await client.ancestry(project);
    return chain.filter((a) => a.type && a.id).map((a) => `${a.type}-${a.id}`);
  } catch (e) {
    throw providerFailure(e, `project ${JSON.stringify(project)} not found for group aliases`, `could not read the ancestry of project ${JSON.stringify(project)}`);
  }
}
