// Typed calls for automated snapshot configurations (sys/storage/raft/snapshot-auto): root
// namespace only, so these requests never carry the client's namespace header.

import type { Translator } from './dialect';
import { seg, type VaultClient } from './vault-client';

/** GET .../config/<name> `data`: interval in seconds; secret fields are never returned. */
export interface SnapshotConfigRead {
  storage_type?: string;
  interval?: number;
  retain?: number;
  path_prefix?: string;
  file_prefix?: string;
  local_max_space?: number;
  [field: string]: unknown;
}

/**
 * GET .../status/<name> `data`, the same names in both dialects. The engine leaves a time out when
 * there is none, Vault sends "". `consecutive_errors` is the engine's alone: Vault never sends it,
 * so its absence means "unknown", not 0. The loaded_* fields and `loading_error` report autoload
 * (Vault 1.21; the engine sends them blank).
 */
export interface SnapshotStatus {
  last_snapshot_start?: string;
  last_snapshot_end?: string;
  last_snapshot_error?: string;
  last_snapshot_url?: string;
  snapshot_start?: string;
  snapshot_url?: string;
  next_snapshot_start?: string;
  consecutive_errors?: number;
  loaded_snapshot_id?: string;
  loaded_snapshot_status?: string;
  loaded_snapshot_expires_at?: string;
  loading_error?: string;
  [field: string]: unknown;
}

const base = 'sys/storage/raft/snapshot-auto';
const root = { rootNamespace: true };

const FEATURE = 'automated snapshots (sys/storage/raft/snapshot-auto)';

export class SnapshotApi {
  constructor(
    private readonly c: VaultClient,
    /** Checked first when `c` is a snapshot agent beside the server (VaultClient.snapshotAddress). */
    private readonly beforeAgent?: () => Promise<void>,
  ) {}

  /** The translator, after checking that the server (or the agent in front of it) has the feature. */
  private async ready(): Promise<Translator> {
    await this.beforeAgent?.();
    const t = await this.c.translator();
    await this.c.requireSnapshotAuto(FEATURE);
    return t;
  }

  async list(): Promise<string[]> {
    await this.ready();
    return this.c.list(`${base}/config`, root);
  }

  /** Secret fields are removed here even when the server returns them (Vault does: vault#10971). */
  async read(name: string): Promise<SnapshotConfigRead | undefined> {
    const t = await this.ready();
    const data = await this.c.read<SnapshotConfigRead>(`${base}/config/${seg(name)}`, root);
    return data && (t.fromServer('snapshot-config', data) as SnapshotConfigRead);
  }

  /** Resolves to the server's warnings in keyward's words (empty when none). */
  async write(name: string, body: Record<string, unknown>): Promise<string[]> {
    const t = await this.ready();
    return t.errorsFromServer(await this.c.write(`${base}/config/${seg(name)}`, t.toServer('snapshot-config', body), root));
  }

  async delete(name: string): Promise<void> {
    await this.ready();
    return this.c.delete(`${base}/config/${seg(name)}`, root);
  }

  async status(name: string): Promise<SnapshotStatus | undefined> {
    const t = await this.ready();
    const data = await this.c.read<SnapshotStatus>(`${base}/status/${seg(name)}`, root);
    return data && (t.fromServer('snapshot-status', data) as SnapshotStatus);
  }
}
