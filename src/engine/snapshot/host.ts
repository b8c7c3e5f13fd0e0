// What the scheduler and an attempt need from their surroundings: time, logs and the archive to
// store. The engine's archive is a view of its own store; the snapshot agent's is a managed
// server's GET sys/storage/raft/snapshot (src/snapshot-agent). One scheduler serves both.

import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { SystemContext } from '../route-family';
import type { Clock } from '../clock';
import type { SnapshotConfig } from '../../schema/snapshot-config';
import type { Logger } from '../log';
import { openArchiveStream } from './archive-writer';
import { SCRATCH_DIR } from './scratch';

/** An archive being produced: its exact length is known before the first byte is sent. */
export interface SnapshotArchive {
  size: number;
  /** The bytes. Destroying it cancels the archive. */
  stream: Readable;
  /** Resolves once the last byte has been produced; rejects on failure. */
  done: Promise<void>;
  /** The archive's own failure, as opposed to its consumer giving up. */
  producerError(): Error | undefined;
}

export interface SnapshotHost {
  clock: Clock;
  log: Logger;
  /** Opens the archive an attempt started at `startMs` stores. */
  openArchive(startMs: number, signal: AbortSignal): Promise<SnapshotArchive>;
  /** What producing the archive is called in a failure's status text (default: writing the snapshot archive). */
  archiveStage?: string;
  /** Removes scratch leftovers of a crash (called once, at the first start). */
  cleanupScratch(): Promise<void>;
  /**
   * Refuses a config this host does not run (throws; the attempt's error), before anything is
   * read or stored: the agent's store configs without keys unless ambient credentials are allowed.
   */
  vetConfig?(config: SnapshotConfig): void;
  /**
   * Health first: a reason to skip this attempt before anything is read (the agent's managed
   * server reports sealed), or undefined. A skip is recorded as the attempt's error.
   */
  skipReason?(): Promise<string | undefined>;
}

export function engineSnapshotHost(sys: SystemContext): SnapshotHost {
  return {
    clock: sys.clock,
    log: sys.log,
    openArchive: (startMs) => openArchiveStream(sys.rawStorage, sys.seal, startMs),
    // At process start only: after a restore's reload a manual save may still be streaming from it.
    cleanupScratch: () => rm(join(sys.dataDir, SCRATCH_DIR), { recursive: true, force: true }),
  };
}

/** The engine passes its SystemContext; other hosts (the agent) pass a SnapshotHost. */
export function asSnapshotHost(x: SystemContext | SnapshotHost): SnapshotHost {
  return 'rawStorage' in x ? engineSnapshotHost(x) : x;
}
