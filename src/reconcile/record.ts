// The last-applied record: which objects keyward manages and what it last wrote (canonical fields,
// secret fingerprints, identifiers the server returned). It drives deletes of objects removed
// from the desired state, drift detection and secret rotation. Given by the Terraform integration
// (a previous manifest) or kept by the CLI in keyward.last-applied.json next to the manifest.

import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseManifest } from '../schema/manifest';
import { desiredFromManifest } from './desired';
import type { DesiredObject, Json, RecordOrigin } from './model';

export type { RecordOrigin };

export interface RecordedObject {
  fields: Record<string, Json>;
  /** Secret field -> fingerprint of the value last written. */
  secrets: Record<string, string>;
  /** Identifiers read back after the write (e.g. credentials' private_key_id). */
  observed: Record<string, string>;
}

export interface LastApplied {
  version: 1;
  objects: Record<string, RecordedObject>;
}

export const emptyRecord = (): LastApplied => ({ version: 1, objects: {} });

/**
 * Accepts a record, or a previous manifest (the one `cdktf deploy` applied through the provider, or
 * one a pipeline kept): its objects count as applied with their declared fields and fingerprints.
 */
export function parseRecord(input: unknown): LastApplied {
  if (input && typeof input === 'object' && 'objects' in input && (input as { version?: unknown }).version === 1) {
    const objects = (input as LastApplied).objects;
    if (objects && typeof objects === 'object') return { version: 1, objects };
  }
  if (input && typeof input === 'object' && 'fingerprintSalt' in input) {
    const desired = desiredFromManifest(parseManifest(input), {}, { lenientSecrets: true });
    const rec = emptyRecord();
    for (const o of desired.objects.values()) {
      const r = recordedFrom(o);
      // A secret with no fingerprint in the manifest (a Terraform variable, fed to the provider's
      // write-only attribute) was applied by Terraform with a value keyward cannot know: in sync
      // while the server holds one.
      for (const field of Object.keys(o.secrets)) r.secrets[field] ??= APPLIED_UNKNOWN_FINGERPRINT;
      rec.objects[o.id] = r;
    }
    return rec;
  }
  throw new Error('last-applied record: expected a keyward record ({"version":1,"objects":{...}}) or a keyward manifest');
}

/** Recorded fingerprint of a secret applied by Terraform from a variable (value unknown to keyward). */
export const APPLIED_UNKNOWN_FINGERPRINT = 'applied-by-terraform';

export function recordedFrom(o: DesiredObject, observed: Record<string, string> = {}): RecordedObject {
  return {
    fields: o.fields,
    secrets: Object.fromEntries(
      Object.entries(o.secrets)
        .filter(([, s]) => s.fingerprint !== '')
        .map(([k, s]) => [k, s.fingerprint]),
    ),
    observed,
  };
}

export function loadRecordFile(path: string): LastApplied {
  if (!existsSync(path)) return emptyRecord();
  return parseRecord(JSON.parse(readFileSync(path, 'utf8')));
}

/** Written atomically (temp file + rename) so a killed apply never leaves a torn record. */
export function saveRecordFile(path: string, rec: LastApplied): void {
  const tmp = `${path}.${process.pid}.tmp`;
  const sorted: LastApplied = {
    version: 1,
    objects: Object.fromEntries(
      Object.keys(rec.objects)
        .sort()
        .map((k) => [k, rec.objects[k]]),
    ),
  };
  writeFileSync(tmp, JSON.stringify(sorted, null, 1) + '\n', { mode: 0o644 });
  renameSync(tmp, path);
}
