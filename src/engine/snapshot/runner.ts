// One automated snapshot attempt: archive the store into a scratch file, publish it through the
// config's target under its final name, then apply retention (only once the new one is complete).

import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SystemContext } from '../backend';
import type { SnapshotConfig } from '../../schema/snapshot-config';
import { writeArchiveFile } from './archive-writer';
import { raceAbort } from './deadline';
import { applyRetention } from './retention';
import { createTarget } from './targets/create-target';
import { LocalSpaceError } from './targets/local';
import { describeStoreError, snapshotFileName, type SnapshotTarget } from './targets/target';

export const SCRATCH_DIR = 'snapshot-scratch';

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
  /** Set when the snapshot was written but rotating old ones failed. */
  retentionError?: string;
  /** Names retention deleted. */
  deleted: string[];
  /** Names of earlier failed uploads that could not be deleted yet. */
  orphansLeft: string[];
}

/** Scratch files live in the engine's data dir; leftovers of a crash are removed at start. */
export async function scratchFile(sys: SystemContext): Promise<string> {
  const dir = join(sys.dataDir, SCRATCH_DIR);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return join(dir, `${randomUUID()}.snap`);
}

export interface AttemptControl {
  /** Aborts the attempt (its deadline, a restore, shutdown): the store stages end at once. */
  signal: AbortSignal;
  /** Asked before retention: a config deleted mid-attempt rotates nothing. */
  stillWanted: () => boolean;
  /** Told the archive size once known (the deadline grows with it). */
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
export async function runAttempt(sys: SystemContext, config: SnapshotConfig, plan: AttemptPlan, startMs: number, ctl: AttemptControl): Promise<AttemptResult> {
  const { signal } = ctl;
  const file = await scratchFile(sys);
  try {
    let size: number;
    try {
      size = (await writeArchiveFile(sys.rawStorage, sys.seal, file, startMs)).size;
    } catch (e) {
      throw new Error(`writing the snapshot archive failed: ${(e as Error).message}`);
    }
    ctl.onArchiveSize?.(size);
    try {
      // Raced against the signal as well: an SDK that ignores it must not hold the attempt.
      await raceAbort(plan.target.put(plan.name, () => createReadStream(file), size, signal), signal);
    } catch (e) {
      if (e instanceof LocalSpaceError) throw e;
      throw new Error(describeStoreError('upload to', config.storage_type, signal.aborted ? signal.reason : e));
    }
    const orphansLeft: string[] = [];
    for (const name of ctl.orphans ?? []) {
      if (name === plan.name) continue;
      try {
        await raceAbort(plan.target.delete(name), signal);
      } catch {
        orphansLeft.push(name);
      }
    }
    if (!ctl.stillWanted()) return { deleted: [], orphansLeft };
    const sequence = new Map(ctl.sequence ?? []);
    sequence.set(plan.name, Number.MAX_SAFE_INTEGER);
    try {
      return { deleted: await raceAbort(applyRetention(plan.target, config.file_prefix, config.retain, sequence), signal), orphansLeft };
    } catch (e) {
      return {
        retentionError: `retention failed: ${describeStoreError('rotation on', config.storage_type, signal.aborted ? signal.reason : e)}`,
        deleted: [],
        orphansLeft,
      };
    }
  } finally {
    await rm(file, { force: true });
    // After an abort the store may be the thing stalled: close in the background.
    if (signal.aborted) void plan.target.close().catch(() => undefined);
    else await plan.target.close();
  }
}
