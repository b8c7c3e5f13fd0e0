// The server default of a field of each table, for folding defaults away where a reviewer reads what was declared
// (a created object in the PR plan). From the field tables; undefined where a field has none.

import { MOUNT_FIELDS } from '../schema/auth-mount-fields';
import { CLOUD_CONFIG_FIELDS } from '../schema/cloud-config-fields';
import { ROLE_FIELDS } from '../schema/cloud-role-fields';
import { SNAPSHOT_FIELDS } from '../schema/snapshot-fields';
import { isDefaultMetadata } from './canonical';
import { sameValue, type Json, type ObjectKind } from './model';

const DEFAULTS: Record<ObjectKind, ReadonlyMap<string, unknown>> = {
  role: new Map(ROLE_FIELDS.filter((f) => !f.aliasOf).map((f) => [f.name, f.default])),
  'auth-config': new Map(CLOUD_CONFIG_FIELDS.map((f) => [f.name, f.default])),
  'auth-mount': new Map(MOUNT_FIELDS.map((f) => [f.name, f.default])),
  'snapshot-config': new Map(SNAPSHOT_FIELDS.map((f) => [f.name, f.default])),
};

/** Whether a canonical value is the table's default for the field (a field with no default never is). */
export function isFieldDefault(kind: ObjectKind, field: string, v: Json | undefined): boolean {
  if (kind === 'auth-config' && (field === 'iam_metadata' || field === 'vm_metadata')) return isDefaultMetadata(field, v);
  const d = DEFAULTS[kind].get(field);
  return d !== undefined && sameValue(d, v);
}
