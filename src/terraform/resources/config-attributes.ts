// The `config` block's attribute schema of keyward_cloud_auth_backend, as plain data built from the
// config field table (src/schema/cloud-config-fields.ts); see role-attributes.ts for why it is apart
// from config-values.ts.

import { CLOUD_CONFIG_FIELDS, CONFIG_SECRET } from '../../schema/cloud-config-fields';
import type { AttributeSchema } from '../plugin/contract';
import { secretAttributes } from './secret-attributes';
import { attributeType, type Kind } from './values';

const PLAIN = CLOUD_CONFIG_FIELDS.filter((f) => !f.secret);

/** Terraform attribute -> how it is spelled. */
export const CONFIG_ATTRS: Readonly<Record<string, Kind>> = Object.fromEntries(PLAIN.map((f) => [f.name, f.kind]));
// The names are shared with reading Terraform's state (one list for both).
export { CONFIG_NAMES } from '../../terraform-state/attribute-names';

// Optional and computed: null = the server default, planned in the default's spelling.
export const configAttributes: Record<string, AttributeSchema> = {
  ...secretAttributes(CONFIG_SECRET, 'the service account credentials JSON'),
  ...Object.fromEntries(PLAIN.map((f) => [f.name, { type: attributeType(f.kind), optional: true, computed: true, description: f.description } satisfies AttributeSchema])),
};
