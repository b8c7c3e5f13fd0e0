// One automated snapshot attempt: stream the archive of the store straight into the config's
// target (the target publishes it under its final name only once complete), then apply retention
// (only once the new one is complete).

import type { SystemContext } from '../route-family';
import type { SnapshotConfig } from '../../schema/snapshot-config';
import { raceAbort } from './deadline';
import { asSnapshotHost, type SnapshotArchive, type SnapshotHost } from './host';
import { applyRetention } from './retention';
import { createTarget } from './targets/create-target';
import { LocalSpaceError } from './targets/local';
import { describeStoreError, partialOf, snapshotFileName, type SnapshotTarget } from './targets/target';

export interface AttemptPlan {
  target: SnapshotTarget;
  name: string;
  url: string;
}

export function planAttempt(config: SnapshotConfig, startMs: number): AttemptPlan {
  const target = createTarget(config);
  const name = snapshotFileName(config.file_prefix, BigInt(startMs) * 1_000_000n);
  return { target, name, url: target.url(name) };
}

export interface AttemptResult {
  /** Bytes of the snapshot stored. */
  size: number;
  /** Set when the snapshot was written but rotating old ones failed. */
  retentionError?: string;
  /** Names retention deleted. */
  deleted: string[];
  /** Names of earlier failed uploads that could not be deleted yet. */
  orphansLeft: string[];
}

export interface AttemptControl {
  /** Aborts the attempt (its deadline, a restore, shutdown): the store stages end at once. */
  signal: AbortSignal;
  /** Asked before retention: a config deleted mid-attempt rotates nothing. */
  stillWanted: () => boolean;
  /** Told the archive's size before the upload starts (the deadline grows with it). */
  onArchiveSize?: (bytes: number) => void;
  /** This config's snapshots in write order (name -> sequence), newest ranked first by retention. */
  sequence?: ReadonlyMap<string, number>;
  /**
   * Final names of earlier attempts whose upload failed: a stalled store may still commit what it
   * had received (whole or, for some S3-compatible stores, cut short) once it resumes, so they
   * are deleted once the store answers again.
   */
  orphans?: readonly string[];
}

/** Runs the attempt; throws an Error whose message is the status text (stage + store message). */
export async function runAttempt(hostOrSys: SnapshotHost | SystemContext, config: SnapshotConfig, plan: AttemptPlan, startMs: number, ctl: AttemptControl): Promise<AttemptResult> {
  const { signal } = ctl;
  const host = asSnapshotHost(hostOrSys);
  let archive: SnapshotArchive | undefined;
  // Retention's listing is taken while the archive is read and uploaded, so its round trip does
  // not add to the attempt. Attempts of one config never overlap, so nothing else writes its
  // names meanwhile: this listing, plus the new snapshot, less the orphans discarded below, is
  // what a listing after the upload would show. Settled here: an attempt that fails before
  // retention never looks at it.
  const listing = plan.target.list().then(
    (objects) => ({ objects }),
    (error: unknown) => ({ error }),
  );
  try {
    try {
      const opening = host.openArchive(startMs, signal);
      // An archive that opens after an abort is released at once.
      opening.then(
        (a) => signal.aborted && a.stream.destroy(),
        () => undefined,
      );
      archive = await raceAbort(opening, signal);
    } catch (e) {
      throw new Error(`${host.archiveStage ?? 'writing the snapshot archive'} failed: ${(e as Error).message}`);
    }
    const a = archive;
    ctl.onArchiveSize?.(a.size);
    try {
      // Raced against the signal as well: an SDK that ignores it must not hold the attempt. A
      // failed attempt's name becomes an orphan the next attempt deletes (scheduler), whatever
      // the store made of the upload.
      await raceAbort(Promise.all([plan.target.put(plan.name, () => a.stream, a.size, signal), a.done]), signal);
    } catch (e) {
      a.stream.destroy();
      if (e instanceof LocalSpaceError) throw e;
      const own = a.producerError();
      if (own && !signal.aborted) throw new Error(`${host.archiveStage ?? 'writing the snapshot archive'} failed: ${own.message}`);
      throw new Error(describeStoreError('upload to', config.storage_type, signal.aborted ? signal.reason : e));
    }
    // After an abort (deadline, restore, shutdown) or the config's deletion no store operation
    // starts: raceAbort only stops waiting, so each one is checked before it is sent.
    const proceed = () => !signal.aborted && ctl.stillWanted();
    const orphansLeft: string[] = [];
    const discarded = new Set<string>();
    for (const name of ctl.orphans ?? []) {
      if (name === plan.name) continue;
      if (!proceed()) {
        orphansLeft.push(name);
        continue;
      }
      try {
        await raceAbort(plan.target.discard(name), signal);
        discarded.add(name);
      } catch {
        orphansLeft.push(name);
      }
    }
    if (!ctl.stillWanted()) return { size: a.size, deleted: [], orphansLeft };
    const sequence = new Map(ctl.sequence ?? []);
    sequence.set(plan.name, Number.MAX_SAFE_INTEGER);
    try {
      const listed = await raceAbort(listing, signal);
      if ('error' in listed) throw listed.error;
      const objects = listed.objects.filter((o) => o.name !== plan.name && !discarded.has(o.name) && !discarded.has(partialOf(o.name) ?? ''));
      objects.push({ name: plan.name, size: archive.size });
      const deleted = await raceAbort(applyRetention(plan.target, config.file_prefix, config.retain, sequence, { proceed, listed: objects }), signal);
      return { size: a.size, deleted, orphansLeft };
    } catch (e) {
      return {
        retentionError: `retention failed: ${describeStoreError('rotation on', config.storage_type, signal.aborted ? signal.reason : e)}`,
        size: a.size,
        deleted: [],
        orphansLeft,
      };
    }
  } finally {
    // Releases the store's view whatever happened (a no-op once the archive has ended).
    archive?.stream.destroy();
    // After an abort the store may be the thing stalled: close in the background.
    if (signal.aborted) void plan.target.close().catch(() => undefined);
    else await plan.target.close();
  }
}
