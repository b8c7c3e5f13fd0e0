// The scheduler's record store over the agent's --state: configs and status as JSON, the same
// records the engine keeps, so a restarted or moved agent resumes every schedule. Configs carry
// store credentials: with a seal (--seal-key-file, the engine's AES-256-GCM seal) they are kept
// encrypted, bound to their key; status records hold no secret and stay readable.

import type { Seal } from '../engine/route-family';
import { ApiError } from '../schema/errors';
import type { ConfigRecord, SnapshotRecordStore, StatusRecord } from '../engine/snapshot/records';
import type { StateStore } from './state-store';

const json = (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8');

interface SealedRecord {
  sealed: string;
}

/**
 * A config record a sealed agent does not run: kept in clear text in --state although the agent
 * has a seal key (planted by whoever can write the state, or left from before the key).
 */
export class UnsealedRecordError extends ApiError {
  constructor(readonly configName: string) {
    // A 500 that says why (the state, not the caller's request, is at fault), never "internal error".
    super('internal', [
      `config ${configName} in --state is not sealed with this agent's --seal-key-file: refused (a config written through any agent with this key is sealed; ` +
        'one in clear text was written to the state directly). If the clear configs are your own from before the key, start once with --seal-existing-configs to seal them',
    ]);
  }
}

export class AgentRecords implements SnapshotRecordStore {
  constructor(
    private readonly state: StateStore,
    private readonly seal?: Seal,
  ) {}

  private async read<T>(key: string): Promise<T | undefined> {
    const raw = await this.state.get(key);
    return raw === undefined ? undefined : (JSON.parse(raw.toString('utf8')) as T);
  }

  async getConfig(name: string): Promise<ConfigRecord | undefined> {
    const key = `config/${name}`;
    const rec = await this.read<ConfigRecord | SealedRecord>(key);
    if (!rec) return undefined;
    if (!('sealed' in rec)) {
      if (this.seal) throw new UnsealedRecordError(name);
      return rec;
    }
    if (!this.seal) throw new Error(`config ${name} in --state is encrypted: start the agent with the --seal-key-file the other agents use`);
    try {
      return JSON.parse(this.seal.decrypt(Buffer.from(rec.sealed, 'base64'), key).toString('utf8')) as ConfigRecord;
    } catch {
      throw new Error(`config ${name} in --state was encrypted with another seal key than this agent's --seal-key-file`);
    }
  }

  /**
   * The explicit first seal (--seal-existing-configs): every config kept in clear text is written
   * again sealed with this agent's key. Returns their names (the agent reports them).
   */
  async sealClearConfigs(): Promise<string[]> {
    if (!this.seal) throw new Error('--seal-existing-configs needs --seal-key-file');
    const sealed: string[] = [];
    for (const name of await this.listConfigs()) {
      const rec = await this.read<ConfigRecord | SealedRecord>(`config/${name}`);
      if (!rec || 'sealed' in rec) continue;
      await this.putConfig(name, rec);
      sealed.push(name);
    }
    return sealed;
  }

  putConfig(name: string, rec: ConfigRecord): Promise<void> {
    const key = `config/${name}`;
    const value = this.seal ? json({ sealed: this.seal.encrypt(json(rec), key).toString('base64') } satisfies SealedRecord) : json(rec);
    return this.state.put(key, value);
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
