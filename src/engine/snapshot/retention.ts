// Retention: after a snapshot is complete, keep the newest `retain` of this config's snapshots
// (exact name pattern, ordered by the numeric timestamp) and delete the older ones.

import { snapshotNamePattern, type SnapshotTarget } from './targets/target';

/** Returns the names deleted. Files not matching `<file_prefix>-<digits>.snap` are never touched. */
export async function applyRetention(target: SnapshotTarget, filePrefix: string, retain: number): Promise<string[]> {
  const pattern = snapshotNamePattern(filePrefix);
  const ours = (await target.list())
    .map((o) => ({ name: o.name, m: pattern.exec(o.name) }))
    .filter((x): x is { name: string; m: RegExpExecArray } => x.m !== null)
    .map((x) => ({ name: x.name, ts: BigInt(x.m[1]) }))
    .sort((a, b) => (a.ts > b.ts ? -1 : a.ts < b.ts ? 1 : 0));
  const doomed = ours.slice(Math.max(1, retain)).map((x) => x.name);
  for (const name of doomed) await target.delete(name);
  return doomed;
}
