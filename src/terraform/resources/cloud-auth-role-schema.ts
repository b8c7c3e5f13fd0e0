// keyward_cloud_auth_role's schema as plain data (see role-attributes.ts for why it is apart): one
// role per Terraform resource, for HCL users who want a resource per role and for cdktf's generated
// bindings (Python, Go, Java, C#), whose generator emits no setter for a map block such as the
// backend's `roles`. The role attributes are the backend's (the role field table).

import type { BlockSchema } from '../plugin/contract';
import { roleAttributes } from './role-attributes';

export const roleResourceSchema: BlockSchema = {
  version: 0,
  description:
    "One role of a cloud auth backend (`auth/<backend>/role/<name>`), as its own resource. Use it where a resource per role suits (generated cdktf bindings, modules, for_each); `keyward_cloud_auth_backend`'s nested `roles` is what scales to 10,000 roles. Declare a role in one place only, and do not set `exclusive_roles` on a backend whose roles are (also) managed this way: it would delete them.",
  attributes: {
    backend: {
      type: { kind: 'string' },
      required: true,
      description:
        'Mount path of the cloud auth backend holding the role, such as `cloud` or `team/cloud` (refer to `keyward_cloud_auth_backend.<name>.path` so the mount is created first). A change replaces the role.',
    },
    name: {
      type: { kind: 'string' },
      required: true,
      description:
        'Role name: lower-case letters, digits, `_`, `-` or `.`, starting and ending with a letter or digit. A change replaces the role (a new role_id; tokens issued through the old one stop renewing).',
    },
    ...roleAttributes,
  },
};
