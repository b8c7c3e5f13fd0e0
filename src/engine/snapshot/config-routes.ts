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
import type { SnapshotStatus } from '../../schema/snapshot-status';

export const SNAPSHOT_AUTO = 'sys/storage/raft/snapshot-auto';

/** How configs and status look on the wire (the agent in front of Vault speaks Vault's names and shapes). */
export interface ConfigWire {
  /** A stored (keyward-named, redacted) config as the client reads it; `unset`: see ConfigRecord.unset. */
  toClient(config: Record<string, unknown>, unset: readonly string[]): Record<string, unknown>;
  /** A client's write body in keyward's names. */
  fromClient(body: Record<string, unknown>): Record<string, unknown>;
  /** Fields to remember as unset when a write leaves them out (read back absent). */
  unsetWhenOmitted?: readonly string[];
  /** A status read as the client reads it. */
  statusToClient?(status: SnapshotStatus): Record<string, unknown>;
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
  /** Absent: keyward's own names and shapes. */
  wire?: ConfigWire;
  /**
   * Set: autoload_enabled true is refused with this text (a server that cannot load snapshots and
   * does not stand in for one that can).
   */
  refuseAutoload?: string;
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
  const write = async (ctx: RequestContext) => {
    d.requireFeature?.();
    const name = nameOf(ctx);
    const body = d.wire ? d.wire.fromClient(ctx.body) : ctx.body;
    const existing = d.wire?.unsetWhenOmitted ? await d.records.getConfig(name) : undefined;
    const { config, unknown } = await checkConfigWrite(d.records, name, body, { engineRules: d.engineRules, refuseAutoload: d.refuseAutoload });
    if (unknown.length > 0) ctx.warnings.push(unknownFieldsWarning(unknown));
    const writtenAt = d.now();
    // Left out now and never set before (an update keeps what an earlier write set).
    const unset = (d.wire?.unsetWhenOmitted ?? []).filter((f) => body[f] === undefined && (!existing || (existing.unset ?? []).includes(f)));
    await d.records.putConfig(name, { config, written_at: writtenAt, ...(unset.length > 0 ? { unset } : {}) });
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
      pattern: `${SNAPSHOT_AUTO}/config/:name+`,
      sudo: true,
      rootOnly: true,
      // An invalid name names no config (the handler refuses it with a 400 after the ACL check).
      exists: async (ctx) => snapshotConfigNameProblem(ctx.params.name) === undefined && (await d.records.getConfig(ctx.params.name)) !== undefined,
      operations: {
        read: async (ctx) => {
          const rec = await d.records.getConfig(nameOf(ctx));
          if (!rec) throw new ApiError('not_found', []);
          const redacted = redactSnapshotConfig(rec.config) as Record<string, unknown>;
          return reply.data(d.wire ? d.wire.toClient(redacted, rec.unset ?? []) : redacted);
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
      pattern: `${SNAPSHOT_AUTO}/status/:name+`,
      rootOnly: true,
      operations: {
        read: async (ctx) => {
          const name = nameOf(ctx);
          const rec = await d.records.getConfig(name);
          if (!rec) throw new ApiError('not_found', []);
          const status = d.storedStatusFirst ? ((await d.records.getStatus(name)) ?? d.scheduler.status(name)) : (d.scheduler.status(name) ?? (await d.records.getStatus(name)));
          const wire = statusForRead(rec.config, status);
          return reply.data(d.wire?.statusToClient ? d.wire.statusToClient(wire) : wire);
        },
      },
    },
  ];
}
