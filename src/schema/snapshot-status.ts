// The automated snapshot status record on the wire (sys/storage/raft/snapshot-auto/status/:name):
// RFC 3339 UTC times at second precision; keys absent until the event they describe happened.

import { z } from 'zod';

export const snapshotStatusSchema = z.object({
  consecutive_errors: z.number().int().nonnegative(),
  /** Start of the most recently finished attempt. */
  last_snapshot_start: z.string().optional(),
  last_snapshot_end: z.string().optional(),
  /** "" when that attempt succeeded. */
  last_snapshot_error: z.string().optional(),
  /** "" when that attempt failed (nothing usable was written). */
  last_snapshot_url: z.string().optional(),
  /** Start of the attempt in progress, or of the latest one when idle. */
  snapshot_start: z.string().optional(),
  snapshot_url: z.string().optional(),
  next_snapshot_start: z.string().optional(),
  /** Autoload (Vault 1.21): the snapshot loaded at recovery and how that went; the engine sends them blank. */
  loaded_snapshot_id: z.string().optional(),
  loaded_snapshot_status: z.string().optional(),
  loaded_snapshot_expires_at: z.string().optional(),
  loading_error: z.string().optional(),
});

export type SnapshotStatus = z.infer<typeof snapshotStatusSchema>;

/** RFC 3339 in UTC at second precision ("2024-03-05T08:00:04Z"), as status fields carry times. */
export function rfc3339Seconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
