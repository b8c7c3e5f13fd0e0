// The rules of a config write and the status read that the engine's routes and the snapshot agent
// share: validation, location collisions, at most one autoload config; the status wire form.

import { Errors } from '../../schema/errors';
import type { SnapshotConfig } from '../../schema/snapshot-config';
import type { SnapshotStatus } from '../../schema/snapshot-status';
import { snapshotLocationKey, validateSnapshotConfigWrite } from '../../schema/snapshot-validate';
import { statusToWire, type SnapshotRecordStore, type StatusRecord } from './records';

/** The config to store for a write of `body` to `name`; throws a 400 naming the field otherwise. */
export async function checkConfigWrite(
  records: SnapshotRecordStore,
  name: string,
  input: Record<string, unknown>,
  o: { engineRules: boolean; refuseAutoload?: string },
): Promise<{ config: SnapshotConfig; unknown: string[] }> {
  const existing = (await records.getConfig(name))?.config;
  const body = { ...input };
  delete body.name; // the path wins, as in Vault
  const { config, unknown } = validateSnapshotConfigWrite(body, { existing, engineRules: o.engineRules });
  if (o.refuseAutoload && config.autoload_enabled === true) throw Errors.badRequest(o.refuseAutoload);
  const key = snapshotLocationKey(config);
  for (const other of await records.listConfigs()) {
    if (other === name) continue;
    const rec = await records.getConfig(other);
    if (rec && snapshotLocationKey(rec.config) === key) {
      throw Errors.badRequest(`path_prefix and file_prefix collide with config ${other}: each would rotate (delete) the other's snapshots`);
    }
    // Vault 1.21: recovery loads from one config at most.
    if (rec && config.autoload_enabled === true && rec.config.autoload_enabled === true) {
      throw Errors.badRequest(`autoload_enabled is already set on config ${other}: at most one config may load snapshots automatically (turn it off there first)`);
    }
  }
  return { config, unknown };
}

/** The status read of a config: keyward never loads, so autoload's fields are sent blank. */
export function statusForRead(config: SnapshotConfig, status: StatusRecord | undefined): SnapshotStatus {
  const wire = statusToWire(status ?? { consecutive_errors: 0 });
  // Vault reports autoload's loading here; the engine never loads (docs/engine.md, API coverage).
  if (config.autoload_enabled === true) Object.assign(wire, { loaded_snapshot_id: '', loaded_snapshot_status: '', loaded_snapshot_expires_at: '', loading_error: '' });
  return wire;
}
