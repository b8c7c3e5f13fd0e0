// The attribute schema of a role of keyward_cloud_auth_backend, as plain data built from the role
// field table (src/schema/cloud-role-fields.ts): GetProviderSchema needs only this, so a provider
// start that never validates or plans does not load zod.

import { ROLE_FIELDS, type RoleFieldKind } from '../../schema/cloud-role-fields';
import { ROLE_ATTRIBUTE_FIELDS } from '../../terraform-state/attribute-names';
import type { AttributeSchema } from '../plugin/contract';
import { attributeType, type Kind } from './values';

const KIND: Record<RoleFieldKind, Kind> = { commaList: 'set', labels: 'map', duration: 'duration', bool: 'bool', int: 'number', string: 'string' };
// The role fields that are attributes, shared with reading Terraform's state (one list for both).
const FIELDS = ROLE_ATTRIBUTE_FIELDS;

/** Terraform attribute → how it is spelled (role_id and type are handled apart). */
export const ROLE_ATTRS: Readonly<Record<string, Kind>> = Object.fromEntries(FIELDS.map((f) => [f.name, KIND[f.kind]]));
export const ROLE_NAMES = Object.keys(ROLE_ATTRS);
const TYPE = ROLE_FIELDS.find((f) => f.name === 'type')!;

// Optional and not computed: a field left null means the server's default and stays null in plan
// and state, so a plan prints only what a role declares (10,000 roles × 18 spelled-out defaults
// made Terraform's plan output most of a deploy's time). Drift on such a field reads back as the
// live value and plans "value -> null", which apply turns back into the default.
export const roleAttributes: Record<string, AttributeSchema> = {
  type: { type: { kind: 'string' }, required: true, description: TYPE.description },
  role_id: { type: { kind: 'string' }, computed: true, description: "The role's id, assigned by the server when the role is created." },
  ...Object.fromEntries(FIELDS.map((f) => [f.name, { type: attributeType(ROLE_ATTRS[f.name]), optional: true, description: f.description } satisfies AttributeSchema])),
};
