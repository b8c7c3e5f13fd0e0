// The scheduler's record store over the agent's --state: configs and status as JSON, the same
// records the engine keeps, so a restarted or moved agent resumes every schedule.

import type { ConfigRecord, SnapshotRecordStore, StatusRecord } from '../engine/snapshot/records';
import type { StateStore } from './state-store';

const json = (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8');

export class AgentRecords implements SnapshotRecordStore {
  constructor(private readonly state: StateStore) {}

  private async read<T>(key: string): Promise<T | undefined> {
    const raw = await this.state.get(key);
    return raw === undefined ? undefined : (JSON.parse(raw.toString('utf8')) as T);
  }

  getConfig(name: string): Promise<ConfigRecord | undefined> {
    return this.read(`config/${name}`);
  }

  putConfig(name: string, rec: ConfigRecord): Promise<void> {
    return this.state.put(`config/${name}`, json(rec));
  }

  /** Config first: once it is gone no agent schedules the name, so no status comes back. */
  async deleteConfig(name: string): Promise<void> {
    await this.state.delete(`config/${name}`);
    await this.state.delete(`status/${name}`);
  }

  async listConfigs(): Promise<string[]> {
    return (await this.state.list('config/')).map((k) => k.slice('config/'.length)).filter((n) => !n.includes('/'));
  }

  getStatus(name: string): Promise<StatusRecord | undefined> {
    return this.read(`status/${name}`);
  }

  putStatus(name: string, rec: StatusRecord): Promise<void> {
    return this.state.put(`status/${name}`, json(rec));
  }
}
