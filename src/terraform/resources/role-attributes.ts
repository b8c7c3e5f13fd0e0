// The attribute schema of a role of keyward_cloud_auth_backend, as plain data: GetProviderSchema
// needs only this, so a provider start that never validates or plans does not load zod.

import type { AttributeSchema } from '../plugin/contract';
import type { Kind } from './values';

/** Terraform attribute → how it is spelled (role_id and type are handled apart). */
export const ROLE_ATTRS: Readonly<Record<string, Kind>> = {
  bound_service_accounts: 'set',
  bound_projects: 'set',
  add_group_aliases: 'bool',
  max_jwt_exp: 'duration',
  allow_vm_inference: 'bool',
  bound_zones: 'set',
  bound_regions: 'set',
  bound_instance_groups: 'set',
  bound_labels: 'map',
  token_policies: 'set',
  token_ttl: 'duration',
  token_max_ttl: 'duration',
  token_explicit_max_ttl: 'duration',
  token_period: 'duration',
  token_no_default_policy: 'bool',
  token_num_uses: 'number',
  token_type: 'string',
  token_bound_cidrs: 'set',
};
export const ROLE_NAMES = Object.keys(ROLE_ATTRS);

function tfType(kind: Kind): AttributeSchema['type'] {
  switch (kind) {
    case 'set':
    case 'list':
      return { kind, element: { kind: 'string' } };
    case 'map':
      return { kind: 'map', element: { kind: 'string' } };
    case 'bool':
      return { kind: 'bool' };
    case 'number':
      return { kind: 'number' };
    default:
      return { kind: 'string' };
  }
}

// Optional and not computed: a field left null means the server's default and stays null in plan
// and state, so a plan prints only what a role declares (10,000 roles × 18 spelled-out defaults
// made Terraform's plan output most of a deploy's time). Drift on such a field reads back as the
// live value and plans "value -> null", which apply turns back into the default.
export const roleAttributes: Record<string, AttributeSchema> = {
  type: { type: { kind: 'string' }, required: true, description: '"iam" or "vm"; a change replaces this role only (delete + create).' },
  role_id: { type: { kind: 'string' }, computed: true },
  ...Object.fromEntries(ROLE_NAMES.map((n) => [n, { type: tfType(ROLE_ATTRS[n]), optional: true } satisfies AttributeSchema])),
};
