// The `config` block's attribute schema of keyward_cloud_auth_backend, as plain data (see
// role-attributes.ts for why it is apart from config-values.ts).

import type { CONFIG_COMPARED } from '../../reconcile/canonical';
import type { AttributeSchema } from '../plugin/contract';
import { secretAttributes } from './secret-attributes';
import type { Kind } from './values';

export const CONFIG_ATTRS: Readonly<Record<(typeof CONFIG_COMPARED)[number], Kind>> = {
  iam_alias: 'string',
  iam_metadata: 'list',
  vm_alias: 'string',
  vm_metadata: 'list',
  custom_endpoint: 'map',
};
export const CONFIG_NAMES = Object.keys(CONFIG_ATTRS) as (typeof CONFIG_COMPARED)[number][];
export const CONFIG_SECRET = 'credentials';

export const configAttributes: Record<string, AttributeSchema> = {
  ...secretAttributes(CONFIG_SECRET, 'the service account credentials JSON'),
  iam_alias: { type: { kind: 'string' }, optional: true, computed: true },
  iam_metadata: { type: { kind: 'list', element: { kind: 'string' } }, optional: true, computed: true, description: '["default"] = the server defaults, [] = none.' },
  vm_alias: { type: { kind: 'string' }, optional: true, computed: true },
  vm_metadata: { type: { kind: 'list', element: { kind: 'string' } }, optional: true, computed: true },
  custom_endpoint: { type: { kind: 'map', element: { kind: 'string' } }, optional: true, computed: true, description: 'Keys api, iam, crm, compute.' },
};
