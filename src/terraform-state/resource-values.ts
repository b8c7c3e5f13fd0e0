// A keyward resource instance's attributes as a Terraform state or saved plan holds them (JSON, no
// unknown values), turned into canonical objects with the attribute lists the provider declares
// (attribute-names.ts) and the canonical functions it plans with (src/reconcile/canonical.ts), so a
// record read from a state agrees with what the provider plans from the same state.

import { desiredRoleFields, mountFields } from '../reconcile/canonical';
import type { Json } from '../reconcile/model';
import { MOUNT_NAMES, ROLE_NAMES } from './attribute-names';

/** An object of a state's or plan's JSON: a resource instance's attributes, or a nested block. */
export type ObjectValue = { [key: string]: Json };

export const isObject = (v: unknown): v is ObjectValue => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON value as manifest input: nulls (unset attributes) dropped from objects; lists and sets stay arrays. */
function toManifest(v: Json): unknown {
  if (v === null) return undefined;
  if (Array.isArray(v)) return v.map(toManifest);
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = toManifest(x);
    return out;
  }
  return v;
}

/** The non-null attributes of an object among `names`, manifest-shaped. */
export function pick(o: ObjectValue, names: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const n of names) if (o[n] !== null && o[n] !== undefined) out[n] = toManifest(o[n]);
  return out;
}

/** Canonical mount fields of a keyward_cloud_auth_backend instance (server defaults filled in). */
export const mountCanonical = (o: ObjectValue): Record<string, Json> => mountFields('cloud', pick(o, MOUNT_NAMES));

/** Canonical fields of a role (a backend's `roles` entry or a keyward_cloud_auth_role); throws ManifestValueError. */
export const roleCanonical = (name: string, role: ObjectValue): Record<string, Json> => desiredRoleFields(`roles["${name}"]`, { name, type: role.type, ...pick(role, ROLE_NAMES) });
