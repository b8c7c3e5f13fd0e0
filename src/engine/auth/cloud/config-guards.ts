// The engine's own limits on a cloud config write, beyond Vault's field rules (schema/cloud-config):
// plugin identity tokens live no longer than the signing key's verification_ttl, and the
// engine-only endpoint overrides that decide where the engine sends its identity tokens (sts) and
// the federated tokens they buy (iamcredentials) need sudo on the config path. Vault's plugin
// always calls Google's endpoints; without this a config writer could point them at a listener of
// its own and collect tokens signed by the engine for any audience.

import type { RequestContext } from '../../route-family';
import { ApiError } from '../../../schema/errors';
import { DEFAULT_IDENTITY_TOKEN_TTL, usesFederation } from '../../../schema/cloud-config-keyless';
import type { StoredCloudConfig } from '../../../schema/cloud-config';

const FEDERATION_FIELDS = ['identity_token_ttl', 'identity_token_audience', 'service_account_email'];

export const SUDO_ENDPOINT_KEYS = ['sts', 'iamcredentials'] as const;

/** Refuses setting an engine-only endpoint override without sudo (clearing one is always allowed). */
export function checkEndpointOverrides(ctx: RequestContext, written: Record<string, string> | undefined): void {
  if (!written || ctx.sudo) return;
  for (const key of SUDO_ENDPOINT_KEYS) {
    const v = written[key];
    if (v !== undefined && v.trim() !== '') {
      throw new ApiError('permission_denied', [
        `permission denied: custom_endpoint "${key}" is an engine-only override that decides where identity tokens are sent; setting it needs the sudo capability on ${ctx.aclPath}`,
      ]);
    }
  }
}

/**
 * Refuses an identity_token_ttl the signing key could not vouch for until the token expires, when
 * the write touches federation (a config stored before this rule is not a reason to refuse an
 * unrelated write; signing caps its tokens anyway).
 */
export function checkIdentityTokenTtl(next: StoredCloudConfig, written: Record<string, unknown>, maxTtlSeconds: number | undefined): void {
  if (maxTtlSeconds === undefined || !usesFederation(next)) return;
  if (!FEDERATION_FIELDS.some((f) => written[f] !== undefined)) return;
  const ttl = next.identity_token_ttl ?? DEFAULT_IDENTITY_TOKEN_TTL;
  if (ttl > maxTtlSeconds) {
    throw new ApiError('invalid_request', [
      `field "identity_token_ttl" (${ttl} s) exceeds the identity key's verification_ttl (${maxTtlSeconds} s): a token must not outlive the window in which its key is published`,
    ]);
  }
}
