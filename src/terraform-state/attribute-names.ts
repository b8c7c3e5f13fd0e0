// The Terraform attributes of keyward's resources that hold an object's fields, from the field
// tables (src/schema). One list for both sides: the provider declares its attributes from it
// (src/terraform/resources/*-attributes.ts), and reading a state or a saved plan picks the same
// attributes out of a resource instance. Field tables only, no zod: the provider's schema loads this.

import { MOUNT_FIELDS } from '../schema/auth-mount-fields';
import { CLOUD_CONFIG_FIELDS } from '../schema/cloud-config-fields';
import { ROLE_FIELDS } from '../schema/cloud-role-fields';
import { SNAPSHOT_FIELDS } from '../schema/snapshot-fields';

/** keyward_cloud_auth_backend's mount attributes (description, `local`, tune settings). */
export const MOUNT_NAMES: readonly string[] = MOUNT_FIELDS.map((f) => f.name);

/** The backend's `config` block, less its secret (credentials: a fingerprint and write-only attributes). */
export const CONFIG_NAMES: readonly string[] = CLOUD_CONFIG_FIELDS.filter((f) => !f.secret).map((f) => f.name);

/** A role's field attributes: the role table's, less aliases, `name` (the role's key) and `type` (handled apart). */
export const ROLE_ATTRIBUTE_FIELDS = ROLE_FIELDS.filter((f) => !f.aliasOf && f.name !== 'name' && f.name !== 'type');
export const ROLE_NAMES: readonly string[] = ROLE_ATTRIBUTE_FIELDS.map((f) => f.name);

/** keyward_snapshot_auto_config's plain attributes, and its secrets (each a fingerprint and write-only attributes). */
export const SNAPSHOT_PLAIN_NAMES: readonly string[] = SNAPSHOT_FIELDS.filter((f) => !f.secret).map((f) => f.name);
export const SNAPSHOT_SECRETS: readonly string[] = SNAPSHOT_FIELDS.filter((f) => f.secret).map((f) => f.name);
