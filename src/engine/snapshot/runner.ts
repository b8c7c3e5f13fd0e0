// One automated snapshot attempt: archive the store into a scratch file, publish it through the
// config's target under its final name, then apply retention (only once the new one is complete).

import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SystemContext } from '../backend';
import type { SnapshotConfig } from '../../schema/snapshot-config';
import { writeArchiveFile } from './archive-writer';
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
}

/** Scratch files live in the engine's data dir; leftovers of a crash are removed at start. */
export async function scratchFile(sys: SystemContext): Promise<string> {
  const dir = join(sys.dataDir, SCRATCH_DIR);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return join(dir, `${randomUUID()}.snap`);
}

/**
 * Runs the attempt; throws an Error whose message is the status text (stage + store message).
 * `stillWanted` is asked before retention: a config deleted mid-attempt rotates nothing.
 */
export async function runAttempt(sys: SystemContext, config: SnapshotConfig, plan: AttemptPlan, startMs: number, stillWanted: () => boolean): Promise<AttemptResult> {
  const file = await scratchFile(sys);
  try {
    let size: number;
    try {
      size = (await writeArchiveFile(sys.rawStorage, sys.seal, file, startMs)).size;
    } catch (e) {
      throw new Error(`writing the snapshot archive failed: ${(e as Error).message}`);
    }
    try {
      await plan.target.put(plan.name, () => createReadStream(file), size);
    } catch (e) {
      if (e instanceof LocalSpaceError) throw e;
      throw new Error(describeStoreError('upload to', config.storage_type, e));
    }
    if (!stillWanted()) return {};
    try {
      await applyRetention(plan.target, config.file_prefix, config.retain);
    } catch (e) {
      return { retentionError: `retention failed: ${describeStoreError('rotation on', config.storage_type, e)}` };
    }
    return {};
  } finally {
    await rm(file, { force: true });
    await plan.target.close();
  }
}
