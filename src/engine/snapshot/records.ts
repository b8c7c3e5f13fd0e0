// Persisted records of the snapshot family under "sys/snapshot-auto/": each configuration (with
// its write time, for scheduling after a restart) and its status; times kept as epoch ms.

import type { JsonStore } from '../storage/json-store';
import type { SnapshotConfig } from '../../schema/snapshot-config';
import { rfc3339Seconds, type SnapshotStatus } from '../../schema/snapshot-status';

export const SNAPSHOT_STORE_PREFIX = 'sys/snapshot-auto/';

export interface ConfigRecord {
  config: SnapshotConfig;
  /** Engine-clock ms of the last create/update (the schedule restarts from it). */
  written_at: number;
}

export interface StatusRecord {
  consecutive_errors: number;
  last_snapshot_start?: number;
  last_snapshot_end?: number;
  last_snapshot_error?: string;
  last_snapshot_url?: string;
  snapshot_start?: number;
  snapshot_url?: string;
  next_snapshot_start?: number;
  /** Monotonic count of snapshots this config wrote (not on the wire). */
  snapshot_seq?: number;
  /** This config's written snapshots with their sequence number; retention orders by it. */
  sequence?: { name: string; seq: number }[];
  /** Final names of failed uploads to delete on the next successful attempt (not on the wire). */
  orphans?: string[];
  /**
   * The last snapshot written (verified, stored): when, where and its size. Kept across failed
   * attempts, which blank last_snapshot_url (staleness, metrics, `keyward status`; not on the wire).
   */
  last_success_end?: number;
  last_success_url?: string;
  last_success_bytes?: number;
}

/** Where configs and status live: the engine's store, or the snapshot agent's --state. */
export interface SnapshotRecordStore {
  getConfig(name: string): Promise<ConfigRecord | undefined>;
  putConfig(name: string, rec: ConfigRecord): Promise<void>;
  /** Config and status go together: a deleted config leaves no status behind. */
  deleteConfig(name: string): Promise<void>;
  listConfigs(): Promise<string[]>;
  getStatus(name: string): Promise<StatusRecord | undefined>;
  putStatus(name: string, rec: StatusRecord): Promise<void>;
}

export class SnapshotRecords implements SnapshotRecordStore {
  private readonly store: JsonStore;

  constructor(root: JsonStore) {
    this.store = root.sub(SNAPSHOT_STORE_PREFIX);
  }

  getConfig(name: string): Promise<ConfigRecord | undefined> {
    return this.store.get<ConfigRecord>(`config/${name}`);
  }

  putConfig(name: string, rec: ConfigRecord): Promise<void> {
    return this.store.put(`config/${name}`, rec);
  }

  /** Config and status go together: a deleted config leaves no status behind. */
  deleteConfig(name: string): Promise<void> {
    return this.store.batch([
      { type: 'delete', key: `config/${name}` },
      { type: 'delete', key: `status/${name}` },
    ]);
  }

  listConfigs(): Promise<string[]> {
    return this.store.list('config/');
  }

  getStatus(name: string): Promise<StatusRecord | undefined> {
    return this.store.get<StatusRecord>(`status/${name}`);
  }

  putStatus(name: string, rec: StatusRecord): Promise<void> {
    return this.store.put(`status/${name}`, rec);
  }
}

/** Largest |ms| a JavaScript Date represents; a stored time beyond it is dropped, never a 500. */
const MAX_DATE_MS = 8.64e15;

/**
 * The wire form: RFC 3339 UTC times; keys absent until the event they describe happened. Any
 * stored value renders (a record written before a rule existed must not break the route).
 */
export function statusToWire(s: StatusRecord): SnapshotStatus {
  const errors = Number(s.consecutive_errors);
  const out: SnapshotStatus = { consecutive_errors: Number.isFinite(errors) ? errors : 0 };
  const time = (k: 'last_snapshot_start' | 'last_snapshot_end' | 'snapshot_start' | 'next_snapshot_start') => {
    const v = s[k];
    if (typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= MAX_DATE_MS) out[k] = rfc3339Seconds(v);
  };
  time('last_snapshot_start');
  time('last_snapshot_end');
  if (s.last_snapshot_error !== undefined) out.last_snapshot_error = s.last_snapshot_error;
  if (s.last_snapshot_url !== undefined) out.last_snapshot_url = s.last_snapshot_url;
  time('next_snapshot_start');
  time('snapshot_start');
  if (s.snapshot_url !== undefined) out.snapshot_url = s.snapshot_url;
  return out;
}
