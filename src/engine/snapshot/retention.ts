// Retention: after a snapshot is complete, keep the newest `retain` of this config's snapshots
// (exact name pattern) and delete the older ones. "Newest" follows the sequence the scheduler
// keeps with the config, not the wall-clock time in the name: a clock stepping back must never
// make the snapshot just written look oldest.

import { partialOf, snapshotNamePattern, type SnapshotTarget, type StoredObject } from './targets/target';

/** Deletes sent to the store at once: each is a round trip, and a backlog must not flood it. */
const DELETES_IN_FLIGHT = 8;

export interface RetentionOptions {
  /** Asked before each delete: an aborted attempt or a deleted config stops rotating at once. */
  proceed?: () => boolean;
  /**
   * The target's objects when the caller already listed them (the runner lists while the archive
   * uploads, so the listing's round trip does not add to the attempt); listed here otherwise.
   */
  listed?: readonly StoredObject[];
}

/**
 * Returns the names deleted. Files not matching `<file_prefix>-<digits>.snap` are never touched.
 * `sequence` maps the names this config wrote to their sequence numbers; they rank above every
 * other matching name (written before the sequence existed, or by a restored store), which rank by
 * the timestamp in the name. Leftover partialName() objects of this config's snapshots (an engine
 * killed mid-upload leaves an S3 temporary key) are deleted too: attempts of one config never
 * overlap, so none of them is still being written; they are not in the returned list.
 */
export async function applyRetention(
  target: SnapshotTarget,
  filePrefix: string,
  retain: number,
  sequence: ReadonlyMap<string, number> = new Map(),
  options: RetentionOptions = {},
): Promise<string[]> {
  const proceed = options.proceed ?? (() => true);
  const pattern = snapshotNamePattern(filePrefix);
  const listed = options.listed ?? (await target.list());
  const ours = listed
    .map((o) => ({ name: o.name, m: pattern.exec(o.name) }))
    .filter((x): x is { name: string; m: RegExpExecArray } => x.m !== null)
    .map((x) => ({ name: x.name, seq: sequence.get(x.name), ts: BigInt(x.m[1]) }))
    .sort((a, b) => {
      if (a.seq !== undefined || b.seq !== undefined) return (b.seq ?? -1) - (a.seq ?? -1);
      return a.ts > b.ts ? -1 : a.ts < b.ts ? 1 : 0;
    });
  const expired = ours.slice(Math.max(1, retain)).map((x) => x.name);
  const leftovers = listed.map((o) => o.name).filter((n) => pattern.test(partialOf(n) ?? ''));
  const deleted = new Set<string>();
  // Independent deletes go out together (each is a round trip to the store), a few at a time.
  const queue = [...expired, ...leftovers];
  const isExpired = new Set(expired);
  const worker = async () => {
    for (let name = queue.shift(); name !== undefined && proceed(); name = queue.shift()) {
      try {
        await target.delete(name);
      } catch (e) {
        queue.length = 0; // the first failure ends the rotation: no further delete starts
        throw e;
      }
      if (isExpired.has(name)) deleted.add(name);
    }
  };
  await Promise.all(Array.from({ length: Math.min(DELETES_IN_FLIGHT, queue.length) }, worker));
  // In the order ranked (oldest last), whatever order the deletes finished in.
  return expired.filter((n) => deleted.has(n));
}
