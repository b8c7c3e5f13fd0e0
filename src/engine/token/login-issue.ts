// Turns an auth method's LoginResult into a token: policies, lifetime, identity entity, type.

import type { MountInfo } from '../route-family';
import type { Clock } from '../clock';
import type { IdentityStore } from '../identity/identity-store';
import { Errors } from '../../schema/errors';
import { authBlock, tokenPolicies, type AuthBlock } from './auth-block';
import { issueTtl } from './lifetime';
import { effectiveTokenType, withMountLimits } from '../mount/mount-tune';
import type { LoginResult } from './login-result';
import type { TokenStore } from './token-store';

export async function issueLoginToken(
  deps: { tokens: TokenStore; identity: IdentityStore; clock: Clock },
  mount: MountInfo,
  login: LoginResult,
): Promise<{ auth: AuthBlock; warnings: string[] }> {
  // The mount's tune settings: its default/max lease TTL and the token type it hands out.
  const tune = mount.tune?.();
  const s = withMountLimits(login.settings, tune);
  const policies = tokenPolicies(s.policies, s.noDefaultPolicy);
  if (policies.includes('root')) throw Errors.badRequest('auth methods cannot create root tokens');
  const type = effectiveTokenType(s.type, tune);
  const warnings = [...(login.warnings ?? [])];
  const { ttl, capped } = issueTtl(s);
  if (capped) warnings.push(`TTL of ${ttl}s is capped by the role's max TTL or explicit max TTL`);
  const entity = await deps.identity.resolve({
    namespaceId: mount.namespace.id,
    mountAccessor: mount.accessor,
    // Vault names an alias's mount by its full path (`auth/gcp/`), as sys/auth's keys are prefixed by `auth/`.
    mountPath: `auth/${mount.path}/`,
    aliasName: login.alias.name,
    metadata: login.alias.metadata,
    groupAliases: login.groupAliases ?? [],
    now: new Date(deps.clock.now()),
  });
  const token = await deps.tokens.create({
    type,
    policies,
    path: `auth/${mount.path}/login`,
    meta: login.metadata,
    displayName: `${mount.path.replace(/\//g, '-')}-${login.displayName}`,
    namespaceId: mount.namespace.id,
    numUses: s.numUses,
    ttl,
    maxTtl: s.maxTtl,
    explicitMaxTtl: s.explicitMaxTtl,
    period: s.period,
    boundCidrs: s.boundCidrs,
    renewable: type === 'service',
    orphan: true,
    entityId: entity.id,
    mountAccessor: mount.accessor,
    noDefaultPolicy: s.noDefaultPolicy,
    internal: login.internal,
  });
  return { auth: authBlock(token), warnings };
}
