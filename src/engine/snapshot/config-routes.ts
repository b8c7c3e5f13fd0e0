// sys/storage/raft/snapshot-auto/config (LIST) and .../config/:name (read, write, delete), plus
// .../status/:name: sudo on config paths, root namespace only, edition gate on create/update.

import { ApiError, Errors } from '../../schema/errors';
import { snapshotConfigNameProblem } from '../../schema/snapshot-config';
import { redactSnapshotConfig, snapshotLocationKey, validateSnapshotConfigWrite } from '../../schema/snapshot-validate';
import { unknownFieldsWarning } from '../../schema/fields';
import type { Edition, RequestContext, Route } from '../backend';
import { reply } from '../http/reply';
import { statusToWire, type SnapshotRecords } from './records';
import type { SnapshotScheduler } from './scheduler';

const BASE = 'sys/storage/raft/snapshot-auto';

export interface ConfigRouteDeps {
  records: SnapshotRecords;
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
    const existing = (await d.records.getConfig(name))?.config;
    const body = { ...ctx.body };
    delete body.name; // the path wins, as in Vault
    const { config, unknown } = validateSnapshotConfigWrite(body, { existing, engineRules: true });
    const key = snapshotLocationKey(config);
    for (const other of await d.records.listConfigs()) {
      if (other === name) continue;
      const rec = await d.records.getConfig(other);
      if (rec && snapshotLocationKey(rec.config) === key) {
        throw Errors.badRequest(`path_prefix and file_prefix collide with config ${other}: each would rotate (delete) the other's snapshots`);
      }
      // Vault 1.21: recovery loads from one config at most.
      if (rec && config.autoload_enabled === true && rec.config.autoload_enabled === true) {
        throw Errors.badRequest(`autoload_enabled is already set on config ${other}: at most one config may load snapshots automatically (turn it off there first)`);
      }
    }
    if (unknown.length > 0) ctx.warnings.push(unknownFieldsWarning(unknown));
    await d.records.putConfig(name, { config, written_at: d.now() });
    await d.scheduler.configWritten(name, config);
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
          const status = d.scheduler.status(name) ?? (await d.records.getStatus(name)) ?? { consecutive_errors: 0 };
          const wire = statusToWire(status);
          // Vault reports autoload's loading here; the engine never loads (README: API coverage),
          // so an autoload config carries the fields blank.
          if (rec.config.autoload_enabled === true) Object.assign(wire, { loaded_snapshot_id: '', loaded_snapshot_status: '', loaded_snapshot_expires_at: '', loading_error: '' });
          return reply.data(wire);
        },
      },
    },
  ];
}
