// keyward_cloud_auth_backend's schema as plain data: GetProviderSchema (and a start that only
// configures, like a no-op apply) needs no validator, so the provider does not load zod for it.

import type { BlockSchema } from '../plugin/contract';
import { configAttributes } from './config-attributes';
import { mountAttributes } from './mount-attributes';
import { roleAttributes } from './role-attributes';

export const backendSchema: BlockSchema = {
  version: 0,
  description:
    'A `cloud` auth method mount with its config and its roles, as one resource: 10,000 roles are one Terraform resource. Durations (`*_ttl`, `token_period`, `max_jwt_exp`, …) are strings: seconds (`"3600"`) or a duration (`"1h"`), compared canonically. A field left unset means the server\'s default.',
  attributes: {
    path: {
      type: { kind: 'string' },
      required: true,
      description:
        'Mount path, such as `cloud` or `team/cloud`. A change moves the mount with its config and roles (sys/remount); `terraform apply -replace` recreates it instead.',
    },
    ...mountAttributes,
    accessor: { type: { kind: 'string' }, computed: true, description: "The mount's accessor, assigned by the server (entity aliases and policies refer to it)." },
    exclusive_roles: {
      type: { kind: 'bool' },
      optional: true,
      description:
        'Delete roles on the mount that `roles` does not declare. Roles managed by `keyward_cloud_auth_role` resources count as undeclared: do not combine the two on one mount.',
    },
    retain_on_destroy: { type: { kind: 'bool' }, optional: true, description: 'Destroy removes nothing from the server.' },
  },
  // Blocks, not nested attributes. `roles`: Terraform evaluates a 10,000-role block in about a
  // twentieth of the time (HCL `roles "web" { … }`; JSON is `"roles": { "web": { … } }` either way).
  // cdktf's binding generator gives a map block only a getter: generated-binding users declare
  // roles with keyward_cloud_auth_role (cloud-auth-role.ts) instead, over the same role code.
  // `config`: Terraform finds the source range of a diagnostic's attribute path only through
  // blocks (tfdiags' ElaborateFromConfigBody), so an error on config.iam_alias points at that line
  // only when `config` is a block (HCL `config { … }`; JSON `"config": { … }` either way).
  blocks: {
    config: {
      nesting: 'single',
      attributes: configAttributes,
      description: "The auth method's config (`auth/<path>/config`); absent: not managed (the server keeps whatever it holds).",
    },
    roles: {
      nesting: 'map',
      attributes: roleAttributes,
      description:
        'Roles keyed by name (HCL: one `roles "<name>" { … }` block per role; names are lower case). A role removed from the configuration is deleted, and the plan warns about it.',
    },
  },
};
