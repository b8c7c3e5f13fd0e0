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

/**
 * Name rule for configurations: Vault's for a path segment, \w(([\w-.]+)?\w)? (word characters,
 * '-' and '.', starting and ending with a word character), at most 128 characters.
 */
export function snapshotConfigNameProblem(name: string): string | undefined {
  if (name.length > 128 || !/^\w(?:[\w\-.]*\w)?$/.test(name)) {
    return `name ${JSON.stringify(name)} is invalid: names follow Vault's rule \\w(([\\w-.]+)?\\w)?: letters, digits, '_', '-' and '.', starting and ending with a letter, digit or '_' (at most 128 characters)`;
  }
  return undefined;
}
