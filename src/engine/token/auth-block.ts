// The `auth` block of a response that created a token (login or token create), as Vault shapes it.

import type { TokenEntry } from './token-entry';

export interface AuthBlock {
  client_token: string;
  accessor: string;
  policies: string[];
  token_policies: string[];
  identity_policies?: string[];
  metadata: Record<string, string> | null;
  lease_duration: number;
  renewable: boolean;
  entity_id: string;
  token_type: 'service' | 'batch';
  orphan: boolean;
  mfa_requirement: null;
  num_uses: number;
}

export function authBlock(t: TokenEntry): AuthBlock {
  return {
    client_token: t.id,
    accessor: t.accessor,
    policies: t.policies,
    token_policies: t.policies,
    metadata: Object.keys(t.meta).length > 0 ? t.meta : null,
    lease_duration: t.ttl,
    renewable: t.renewable,
    entity_id: t.entityId,
    token_type: t.type,
    orphan: t.orphan,
    mfa_requirement: null,
    num_uses: t.numUses,
  };
}

/**
 * Lower-cased, de-duplicated, sorted policies, plus `default` unless disabled. `root` stands alone:
 * it already grants everything (Vault's SanitizePolicies).
 */
export function tokenPolicies(policies: string[], noDefaultPolicy: boolean): string[] {
  const set = new Set(policies.map((p) => p.trim().toLowerCase()).filter(Boolean));
  if (set.has('root')) return ['root'];
  if (!noDefaultPolicy) set.add('default');
  return [...set].sort();
}
