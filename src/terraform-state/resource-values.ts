// A keyward resource instance's attributes as a Terraform state or saved plan holds them (JSON, no
// unknown values), turned into canonical objects with the attribute lists the provider declares
// (attribute-names.ts) and the canonical functions it plans with (src/reconcile/canonical.ts), so a
// record read from a state agrees with what the provider plans from the same state.

import { desiredRoleFields, mountFields } from '../reconcile/canonical';
import type { Json } from '../reconcile/model';
import { MOUNT_NAMES, ROLE_NAMES } from './attribute-names';
import { pick } from './manifest-shape';

/** An object of a state's or plan's JSON: a resource instance's attributes, or a nested block. */
export type ObjectValue = { [key: string]: Json };

export const isObject = (v: unknown): v is ObjectValue => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Canonical mount fields of a keyward_cloud_auth_backend instance (server defaults filled in). */
export const mountCanonical = (o: ObjectValue): Record<string, Json> => mountFields('cloud', pick(o, MOUNT_NAMES));

/** Canonical fields of a role (a backend's `roles` entry or a keyward_cloud_auth_role); throws ManifestValueError. */
export const roleCanonical = (name: string, role: ObjectValue): Record<string, Json> => desiredRoleFields(`roles["${name}"]`, { name, type: role.type, ...pick(role, ROLE_NAMES) });
