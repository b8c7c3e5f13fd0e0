// sys/storage/raft/snapshot-auto/config (LIST) and .../config/:name (read, write, delete), plus
// .../status/:name: sudo on config paths, root namespace only. The one route table for
// snapshot-auto, served by the engine (snapshot/family.ts) and by the snapshot agent
// (snapshot-agent/api.ts) through the same request core; what differs between them is in
// ConfigRouteDeps, not in a second copy of the routes.

import { ApiError, Errors } from '../../schema/errors';
import { snapshotConfigNameProblem } from '../../schema/snapshot-config';
import { redactSnapshotConfig } from '../../schema/snapshot-validate';
import { unknownFieldsWarning } from '../../schema/fields';
import type { RequestContext, Route } from '../route-family';
import { reply } from '../core/reply';
import { checkConfigWrite, statusForRead } from './config-write';
import type { SnapshotRecordStore } from './records';
import type { SnapshotScheduler } from './scheduler';

export const SNAPSHOT_AUTO = 'sys/storage/raft/snapshot-auto';

/** How config bodies are named on the wire (the agent in front of Vault speaks Vault's names). */
export interface ConfigWireNames {
  /** A stored (keyward-named) config as the client reads it. */
  toClient(config: Record<string, unknown>): Record<string, unknown>;
  /** A client's write body in keyward's names. */
  fromClient(body: Record<string, unknown>): Record<string, unknown>;
}

export interface ConfigRouteDeps {
  records: SnapshotRecordStore;
  scheduler: SnapshotScheduler;
  /** Throws when this server may not store configs (the engine's edition gate); absent: it may. */
  requireFeature?: () => void;
  /**
   * The embedded engine's stricter rules on top of Vault's (engineOnlySnapshotProblems). The agent
   * stands in for Vault Enterprise, so it accepts what Vault accepts.
   */
  engineRules: boolean;
  /** Absent: keyward's own names. */
  wire?: ConfigWireNames;
  /**
   * Status from --state before the scheduler's memory: with several agents on one state, the
   * attempt may have run in another agent. The engine's scheduler is the only writer of its own.
   */
  storedStatusFirst?: boolean;
  now: () => number;
}

function nameOf(ctx: RequestContext): string {
  const name = ctx.params.name;
  const problem = snapshotConfigNameProblem(name);
  if (problem) throw Errors.badRequest(problem);
  return name;
}

export function configRoutes(d: ConfigRouteDeps): Route[] {
  const toClient = (c: Record<string, unknown>) => (d.wire ? d.wire.toClient(c) : c);
  const write = async (ctx: RequestContext) => {
    d.requireFeature?.();
    const name = nameOf(ctx);
    const body = d.wire ? d.wire.fromClient(ctx.body) : ctx.body;
    const { config, unknown } = await checkConfigWrite(d.records, name, body, { engineRules: d.engineRules });
    if (unknown.length > 0) ctx.warnings.push(unknownFieldsWarning(unknown));
    const writtenAt = d.now();
    await d.records.putConfig(name, { config, written_at: writtenAt });
    await d.scheduler.configWritten(name, config, writtenAt);
    return reply.none();
  };

  return [
    {
      pattern: `${SNAPSHOT_AUTO}/config/?`,
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
      pattern: `${SNAPSHOT_AUTO}/config/:name`,
      sudo: true,
      rootOnly: true,
      exists: async (ctx) => (await d.records.getConfig(ctx.params.name)) !== undefined,
      operations: {
        read: async (ctx) => {
          const rec = await d.records.getConfig(nameOf(ctx));
          if (!rec) throw new ApiError('not_found', []);
          return reply.data(toClient(redactSnapshotConfig(rec.config) as Record<string, unknown>));
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
      pattern: `${SNAPSHOT_AUTO}/status/:name`,
      rootOnly: true,
      operations: {
        read: async (ctx) => {
          const name = nameOf(ctx);
          const rec = await d.records.getConfig(name);
          if (!rec) throw new ApiError('not_found', []);
          const status = d.storedStatusFirst ? ((await d.records.getStatus(name)) ?? d.scheduler.status(name)) : (d.scheduler.status(name) ?? (await d.records.getStatus(name)));
          return reply.data(statusForRead(rec.config, status));
        },
      },
    },
  ];
}
