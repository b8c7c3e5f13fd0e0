// The mount's own attributes of keyward_cloud_auth_backend (description, `local`, tune settings), as
// plain data built from the mount field table (src/schema/auth-mount-fields.ts).

import { MOUNT_FIELDS } from '../../schema/auth-mount-fields';
import type { AttributeSchema } from '../plugin/contract';
import { attributeType, type Kind } from './values';

/** Terraform attribute -> how it is spelled. */
export const MOUNT_ATTRS: Readonly<Record<string, Kind>> = Object.fromEntries(MOUNT_FIELDS.map((f) => [f.name, f.kind]));
// The names are shared with reading Terraform's state (one list for both).
export { MOUNT_NAMES } from '../../terraform-state/attribute-names';

// Optional and computed: null = the server default, planned in the default's spelling.
export const mountAttributes: Record<string, AttributeSchema> = Object.fromEntries(
  MOUNT_FIELDS.map((f) => [f.name, { type: attributeType(f.kind), optional: true, computed: true, description: f.description } satisfies AttributeSchema]),
);
