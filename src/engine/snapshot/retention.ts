// Retention: after a snapshot is complete, keep the newest `retain` of this config's snapshots
// (exact name pattern) and delete the older ones. "Newest" follows the sequence the scheduler
// keeps with the config, not the wall-clock time in the name: a clock stepping back must never
// make the snapshot just written look oldest.

import { partialOf, snapshotNamePattern, type SnapshotTarget } from './targets/target';

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
  /** Asked before each delete: an aborted attempt or a deleted config stops rotating at once. */
  proceed: () => boolean = () => true,
): Promise<string[]> {
  const pattern = snapshotNamePattern(filePrefix);
  const listed = await target.list();
  const ours = listed
    .map((o) => ({ name: o.name, m: pattern.exec(o.name) }))
    .filter((x): x is { name: string; m: RegExpExecArray } => x.m !== null)
    .map((x) => ({ name: x.name, seq: sequence.get(x.name), ts: BigInt(x.m[1]) }))
    .sort((a, b) => {
      if (a.seq !== undefined || b.seq !== undefined) return (b.seq ?? -1) - (a.seq ?? -1);
      return a.ts > b.ts ? -1 : a.ts < b.ts ? 1 : 0;
    });
  const deleted: string[] = [];
  for (const x of ours.slice(Math.max(1, retain))) {
    if (!proceed()) break;
    await target.delete(x.name);
    deleted.push(x.name);
  }
  for (const o of listed) {
    const of = partialOf(o.name);
    if (!of || !pattern.test(of)) continue;
    if (!proceed()) break;
    await target.delete(o.name);
  }
  return deleted;
}
