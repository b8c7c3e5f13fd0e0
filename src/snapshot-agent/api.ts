// The snapshot-auto API the agent serves, with the engine's shapes, rules and texts: LIST config,
// config/:name read/write/delete, status/:name, in the managed server's dialect (keyward's names
// for the engine, Vault's for Vault Community and OpenBao). Anything else is not the agent's.

import type { Translator } from '../client/dialect';
import { checkConfigWrite, statusForRead } from '../engine/snapshot/config-write';
import type { SnapshotScheduler } from '../engine/snapshot/scheduler';
import { ApiError, Errors } from '../schema/errors';
import { unknownFieldsWarning } from '../schema/fields';
import { snapshotConfigNameProblem } from '../schema/snapshot-config';
import { redactSnapshotConfig } from '../schema/snapshot-validate';
import type { AgentRecords } from './agent-records';
import type { ManagedServer } from './managed-server';
import { requireCapabilities, type AgentOperation } from './permissions';

export const SNAPSHOT_AUTO = 'sys/storage/raft/snapshot-auto';

export interface AgentRequest {
  /** read | list | create-or-update (POST/PUT) | delete. */
  method: 'read' | 'list' | 'write' | 'delete';
  /** API path without /v1/. */
  path: string;
  token?: string;
  namespace?: string;
  body: Record<string, unknown>;
}

export interface AgentReply {
  status: number;
  data?: unknown;
  warnings?: string[];
}

export interface AgentApiDeps {
  records: AgentRecords;
  scheduler: SnapshotScheduler;
  server: ManagedServer;
  translator: Translator;
  now: () => number;
}

function nameOf(raw: string): string {
  const name = decodeURIComponent(raw);
  const problem = snapshotConfigNameProblem(name);
  if (problem) throw Errors.badRequest(problem);
  return name;
}

export async function handleAgentRequest(d: AgentApiDeps, r: AgentRequest): Promise<AgentReply> {
  const path = r.path.replace(/^\/+/, '');
  if (!path.startsWith(`${SNAPSHOT_AUTO}/`)) throw Errors.unsupportedPath();
  // snapshot-auto is root-namespace only, on Enterprise as on the engine.
  if (r.namespace && r.namespace.replace(/^\/+|\/+$/g, '') !== '' && r.namespace !== 'root') throw Errors.namespaceUnavailable();
  const rest = path.slice(SNAPSHOT_AUTO.length + 1);
  const guard = (p: string, op: AgentOperation, sudo: boolean) => requireCapabilities(d.server, r.token, p, op, sudo);

  if (/^config\/?$/.test(rest)) {
    if (r.method !== 'list') throw Errors.unsupportedOperation();
    // Vault checks a LIST against the path with its trailing slash (http/logical.go).
    await guard(`${SNAPSHOT_AUTO}/config/`, 'list', true);
    const keys = (await d.records.listConfigs()).sort();
    if (keys.length === 0) throw new ApiError('not_found', []);
    return { status: 200, data: { keys } };
  }
  const config = /^config\/([^/]+)$/.exec(rest);
  if (config) {
    const name = nameOf(config[1]);
    const full = `${SNAPSHOT_AUTO}/config/${name}`;
    if (r.method === 'read') {
      await guard(full, 'read', true);
      const rec = await d.records.getConfig(name);
      if (!rec) throw new ApiError('not_found', []);
      return { status: 200, data: d.translator.toServer('snapshot-config', redactSnapshotConfig(rec.config) as Record<string, unknown>) };
    }
    if (r.method === 'delete') {
      await guard(full, 'delete', true);
      d.scheduler.configDeleted(name);
      await d.records.deleteConfig(name);
      return { status: 204 };
    }
    if (r.method === 'write') {
      const exists = (await d.records.getConfig(name)) !== undefined;
      await guard(full, exists ? 'update' : 'create', true);
      const { config: c, unknown } = await checkConfigWrite(d.records, name, d.translator.bodyFromServer('snapshot-config', r.body));
      const writtenAt = d.now();
      await d.records.putConfig(name, { config: c, written_at: writtenAt });
      await d.scheduler.configWritten(name, c, writtenAt);
      return unknown.length > 0 ? { status: 200, data: null, warnings: [unknownFieldsWarning(unknown)] } : { status: 204 };
    }
    throw Errors.unsupportedOperation();
  }
  const status = /^status\/([^/]+)$/.exec(rest);
  if (status) {
    if (r.method !== 'read') throw Errors.unsupportedOperation();
    const name = nameOf(status[1]);
    await guard(`${SNAPSHOT_AUTO}/status/${name}`, 'read', false);
    const rec = await d.records.getConfig(name);
    if (!rec) throw new ApiError('not_found', []);
    // The stored status is the truth: the attempt may have run in another agent.
    return { status: 200, data: statusForRead(rec.config, (await d.records.getStatus(name)) ?? d.scheduler.status(name)) };
  }
  throw Errors.unsupportedPath();
}
