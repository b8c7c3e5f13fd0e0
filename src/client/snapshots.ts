// Typed calls for automated snapshot configurations (sys/storage/raft/snapshot-auto): root
// namespace only, so these requests never carry the client's namespace header.

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

export interface SnapshotStatus {
  last_snapshot_start?: string;
  last_snapshot_end?: string;
  last_snapshot_error?: string;
  last_snapshot_url?: string;
  snapshot_start?: string;
  snapshot_url?: string;
  next_snapshot_start?: string;
  consecutive_errors?: number;
  [field: string]: unknown;
}

const base = 'sys/storage/raft/snapshot-auto';
const root = { rootNamespace: true };

export class SnapshotApi {
  constructor(private readonly c: VaultClient) {}

  list(): Promise<string[]> {
    return this.c.list(`${base}/config`, root);
  }

  read(name: string): Promise<SnapshotConfigRead | undefined> {
    return this.c.read<SnapshotConfigRead>(`${base}/config/${seg(name)}`, root);
  }

  write(name: string, body: Record<string, unknown>): Promise<string[]> {
    return this.c.write(`${base}/config/${seg(name)}`, body, root);
  }

  delete(name: string): Promise<void> {
    return this.c.delete(`${base}/config/${seg(name)}`, root);
  }

  status(name: string): Promise<SnapshotStatus | undefined> {
    return this.c.read<SnapshotStatus>(`${base}/status/${seg(name)}`, root);
  }
}
