// The built-in policies: `root` (allows everything, has no document) and `default` (Vault's default
// policy, trimmed to the paths this engine serves). Handlers use the names to refuse edits.

import { parsePolicy, type Policy } from './hcl';

export const ROOT_POLICY_NAME = 'root';
export const DEFAULT_POLICY_NAME = 'default';

/**
 * Vault's default policy text, adapted to this engine: the token self-service paths, the
 * capabilities check and the UI's resultant ACL. Vault's lease, wrapping, cubbyhole, tools and
 * templated identity stanzas are left out because the engine has no such paths.
 */
export const DEFAULT_POLICY = `# Allow tokens to look up their own properties
path "auth/token/lookup-self" {
    capabilities = ["read"]
}

# Allow tokens to renew themselves
path "auth/token/renew-self" {
    capabilities = ["update"]
}

# Allow tokens to revoke themselves
path "auth/token/revoke-self" {
    capabilities = ["update"]
}

# Allow a token to look up its own capabilities on a path
path "sys/capabilities-self" {
    capabilities = ["update"]
}

# Allow a token to look up its resultant ACL from all policies. This is useful
# for UIs. It is an internal path because the format may change at any time
# based on how the internal ACL features and capabilities change.
path "sys/internal/ui/resultant-acl" {
    capabilities = ["read"]
}
`;

/** The default policy parsed, for a given namespace ("" for root, else "team/"). */
export function defaultPolicy(namespacePath = ''): Policy {
  return parsePolicy(DEFAULT_POLICY_NAME, DEFAULT_POLICY, { namespacePath });
}

/** The root policy: no rules, recognised by name when an ACL is compiled. */
export const ROOT_POLICY: Policy = Object.freeze({ name: ROOT_POLICY_NAME, rules: Object.freeze([]) });
