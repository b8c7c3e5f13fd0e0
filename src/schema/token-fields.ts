// The token fields, as one group every role table takes whole (Vault's sdk/helper/tokenutil
// AddTokenFields): the token_* fields with their create defaults, and the deprecated names
// (policies, ttl, max_ttl, period) that fold into them.

import { roleField as f } from './role-field-spec';

export const TOKEN_FIELDS = [
  f('token_policies', 'commaList', 'both', { default: [], description: 'Policies attached to tokens issued through this role.' }),
  f('token_ttl', 'duration', 'both', { default: 0, description: 'Initial token lifetime; 0 = the mount or system default.' }),
  f('token_max_ttl', 'duration', 'both', { default: 0, description: 'Longest lifetime a token may be renewed to; 0 = the mount or system default.' }),
  f('token_explicit_max_ttl', 'duration', 'both', { default: 0, description: 'Hard cap on the token lifetime, beyond any renewal; 0 = none.' }),
  f('token_period', 'duration', 'both', { default: 0, description: 'Makes tokens periodic: each renewal extends them by this period; 0 = not periodic.' }),
  f('token_no_default_policy', 'bool', 'both', { default: false, description: 'Do not attach the `default` policy.' }),
  f('token_num_uses', 'int', 'both', { default: 0, description: 'Uses a token allows; 0 = unlimited.' }),
  f('token_type', 'string', 'both', { default: 'default', description: '`default`, `service` or `batch`.' }),
  f('token_bound_cidrs', 'commaList', 'both', { default: [], description: 'CIDR blocks tokens may be used from.' }),
];

/** The deprecated names (tokenutil's "Deprecated" fields) and the token field each folds into. */
export const TOKEN_ALIASES = [
  f('policies', 'commaList', 'both', { aliasOf: 'token_policies' }),
  f('ttl', 'duration', 'both', { aliasOf: 'token_ttl' }),
  f('max_ttl', 'duration', 'both', { aliasOf: 'token_max_ttl' }),
  f('period', 'duration', 'both', { aliasOf: 'token_period' }),
];
