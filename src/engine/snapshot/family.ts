// The automated-snapshot system family: config/status routes, save/restore routes and the
// scheduler's lifecycle (started with the engine, restarted after a restore's reload).

import { Errors } from '../../schema/errors';
import type { SystemContext, SystemFamily, SystemFamilyFactory } from '../route-family';
import { configRoutes } from './config-routes';
import type { DeadlinePolicy } from './deadline';
import { SnapshotRecords } from './records';
import { saveRestoreRoutes } from './save-restore-routes';
import { SnapshotScheduler } from './scheduler';

export interface SnapshotFamily extends SystemFamily {
  scheduler: SnapshotScheduler;
}

export function createSnapshotFamily(sys: SystemContext, deadline?: DeadlinePolicy): SnapshotFamily {
  const records = new SnapshotRecords(sys.store);
  const scheduler = new SnapshotScheduler(sys, records, deadline);
  return {
    scheduler,
    routes: [
      ...configRoutes({
        records,
        scheduler,
        requireFeature: () => {
          if (sys.edition === 'oss') throw Errors.editionRequired('automated snapshots (sys/storage/raft/snapshot-auto)');
        },
        engineRules: true,
        now: () => sys.clock.now(),
      }),
      ...saveRestoreRoutes(sys, { stopSchedules: () => scheduler.stop(), startSchedules: () => scheduler.start() }),
    ],
    start: () => scheduler.start(),
    stop: () => scheduler.stop(),
  };
}

export const snapshotFamily: SystemFamilyFactory = (sys) => createSnapshotFamily(sys);
