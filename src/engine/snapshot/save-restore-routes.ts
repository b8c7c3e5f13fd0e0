// sys/storage/raft/snapshot (GET: stream a full archive; POST: verified restore) and
// sys/storage/raft/snapshot-force (restore without the seal check). Restore verifies everything
// before touching data, swaps the whole store atomically, then reloads the engine's tables.

import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Errors } from '../../schema/errors';
import type { RequestContext, Route, SystemContext } from '../route-family';
import { FileBody } from '../core/file-body';
import { reply } from '../core/reply';
import { ArchiveError, readVerifiedArchive } from './archive-reader';
import { writeArchiveFile } from './archive-writer';
import { scratchFile } from './scratch';
import { StateFormatError } from './state-codec';

/** The scheduler's lifecycle as restore needs it: stopped (attempts aborted) before data is replaced. */
export interface RestoreHooks {
  stopSchedules(): Promise<void>;
  startSchedules(): Promise<void>;
}

export function saveRestoreRoutes(sys: SystemContext, hooks: RestoreHooks): Route[] {
  const restore = (force: boolean) => async (ctx: RequestContext) => {
    if (!ctx.stream) throw Errors.badRequest('the request body must be a snapshot archive');
    const dir = dirname(await scratchFile(sys));
    let archive;
    try {
      archive = await readVerifiedArchive(ctx.stream, sys.seal, dir, { force });
    } catch (e) {
      if (e instanceof ArchiveError) throw Errors.badRequest(e.message);
      throw e;
    }
    // Attempts in flight are aborted, never waited for: a stalled store must not hold a restore.
    await hooks.stopSchedules();
    try {
      await sys.rawStorage.replaceAll(archive.entries());
    } catch (e) {
      // replaceAll is atomic: a damaged state.bin leaves the previous data (and schedules) in place.
      await hooks.startSchedules();
      if (e instanceof StateFormatError) throw Errors.badRequest(`failed to restore snapshot: ${e.message}`);
      throw e;
    } finally {
      await archive.dispose();
    }
    sys.log.info('snapshot restored', { entries: archive.meta.entries, snapshot_id: archive.meta.id, force });
    await sys.reload();
    return reply.none();
  };

  return [
    {
      pattern: 'sys/storage/raft/snapshot',
      rootOnly: true,
      raw: true,
      operations: {
        read: async () => {
          const file = await scratchFile(sys);
          // The whole archive is built before the first byte is sent: a failure is a clean 500,
          // never a 200 with a truncated body.
          const { size } = await writeArchiveFile(sys.rawStorage, sys.seal, file, sys.clock.now());
          // Removed once sent, or once the client went away mid-way.
          return reply.file(new FileBody(file, size, () => void rm(file, { force: true })), 'application/gzip', 'raft.snap');
        },
        update: restore(false),
        create: restore(false),
      },
    },
    {
      pattern: 'sys/storage/raft/snapshot-force',
      rootOnly: true,
      raw: true,
      operations: { update: restore(true), create: restore(true) },
    },
  ];
}
