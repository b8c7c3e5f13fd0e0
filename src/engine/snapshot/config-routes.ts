// sys/storage/raft/snapshot-auto/config (LIST) and .../config/:name (read, write, delete), plus
// .../status/:name: sudo on config paths, root namespace only, edition gate on create/update.

import { ApiError, Errors } from '../../schema/errors';
import { snapshotConfigNameProblem } from '../../schema/snapshot-config';
import { redactSnapshotConfig } from '../../schema/snapshot-validate';
import { unknownFieldsWarning } from '../../schema/fields';
import type { Edition, RequestContext, Route } from '../route-family';
import { reply } from '../http/reply';
import { checkConfigWrite, statusForRead } from './config-write';
import type { SnapshotRecordStore } from './records';
import type { SnapshotScheduler } from './scheduler';

const BASE = 'sys/storage/raft/snapshot-auto';

export interface ConfigRouteDeps {
  records: SnapshotRecordStore;
  scheduler: SnapshotScheduler;
  edition: Edition;
  now: () => number;
}

function nameOf(ctx: RequestContext): string {
  const name = ctx.params.name;
  const problem = snapshotConfigNameProblem(name);
  if (problem) throw Errors.badRequest(problem);
  return name;
}

export function configRoutes(d: ConfigRouteDeps): Route[] {
  const write = async (ctx: RequestContext) => {
    if (d.edition === 'oss') throw Errors.editionRequired('automated snapshots (sys/storage/raft/snapshot-auto)');
    const name = nameOf(ctx);
    const { config, unknown } = await checkConfigWrite(d.records, name, ctx.body);
    if (unknown.length > 0) ctx.warnings.push(unknownFieldsWarning(unknown));
    const writtenAt = d.now();
    await d.records.putConfig(name, { config, written_at: writtenAt });
    await d.scheduler.configWritten(name, config, writtenAt);
    return reply.none();
  };

  return [
    {
      pattern: `${BASE}/config/?`,
      sudo: true,
      rootOnly: true,
      operations: {
        list: async () => {
          const keys = (await d.records.listConfigs()).sort();
          if (keys.length === 0) throw new ApiError('not_found', []);
          return reply.data({ keys });
        },
      },
    },
    {
      pattern: `${BASE}/config/:name`,
      sudo: true,
      rootOnly: true,
      exists: async (ctx) => (await d.records.getConfig(ctx.params.name)) !== undefined,
      operations: {
        read: async (ctx) => {
          const rec = await d.records.getConfig(nameOf(ctx));
          if (!rec) throw new ApiError('not_found', []);
          return reply.data(redactSnapshotConfig(rec.config));
        },
        create: write,
        update: write,
        delete: async (ctx) => {
          const name = nameOf(ctx);
          // Stop the schedule first so a finishing attempt cannot write status or rotate after
          // the delete.
          d.scheduler.configDeleted(name);
          await d.records.deleteConfig(name);
          return reply.none();
        },
      },
    },
    {
      pattern: `${BASE}/status/:name`,
      rootOnly: true,
      operations: {
        read: async (ctx) => {
          const name = nameOf(ctx);
          const rec = await d.records.getConfig(name);
          if (!rec) throw new ApiError('not_found', []);
          return reply.data(statusForRead(rec.config, d.scheduler.status(name) ?? (await d.records.getStatus(name))));
        },
      },
    },
  ];
}
