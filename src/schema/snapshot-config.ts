// The automated snapshot configuration on the wire (sys/storage/raft/snapshot-auto/config/:name):
// the field table (per storage type, required, secret, default), write validation and read shape.

import { z } from 'zod';
import { field } from './fields';
import { SNAPSHOT_FIELDS, type SnapshotFieldKind, type StorageType } from './snapshot-fields';

// The field table is plain data in snapshot-fields.ts (the Terraform provider's schema needs it without zod).
export * from './snapshot-fields';

const KIND_SCHEMA: Record<SnapshotFieldKind, () => z.ZodType> = {
  duration: field.duration,
  int: field.int,
  string: field.string,
  bool: field.bool,
};

/** zod field shape of the write body, for parseFields (loose Vault-style coercion per field). */
export const snapshotConfigFieldShape: Record<string, z.ZodType> = Object.fromEntries(SNAPSHOT_FIELDS.map((s) => [s.name, KIND_SCHEMA[s.kind]()]));

/** A stored configuration: every field of its storage type, defaults filled, secrets included. */
export interface SnapshotConfig {
  storage_type: StorageType;
  interval: number;
  retain: number;
  path_prefix: string;
  file_prefix: string;
  [field: string]: string | number | boolean;
}

/** The read response: as stored, with the secret keys omitted entirely (never "" or a mask). */
export type SnapshotConfigRead = Record<string, string | number | boolean>;

/** Name rule for configurations: one path segment of 1-128 characters [A-Za-z0-9._-]. */
export function snapshotConfigNameProblem(name: string): string | undefined {
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(name)) {
    return `name ${JSON.stringify(name)} is invalid: use 1-128 characters from A-Z a-z 0-9 . _ -`;
  }
  return undefined;
}
