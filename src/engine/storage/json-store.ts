// A prefix-scoped JSON view over the (encrypted) storage: what handlers use. Keys are relative to
// the view's prefix; sub(prefix) narrows further (a mount's view is the mount's own subtree).

import type { Storage } from './storage';

export type JsonStoreOp = { type: 'put'; key: string; value: unknown } | { type: 'delete'; key: string };

export class JsonStore {
  constructor(
    private readonly storage: Storage,
    readonly prefix = '',
  ) {}

  sub(prefix: string): JsonStore {
    return new JsonStore(this.storage, this.prefix + prefix);
  }

  async get<T>(key: string): Promise<T | undefined> {
    const raw = await this.storage.get(this.prefix + key);
    return raw === undefined ? undefined : (JSON.parse(raw.toString('utf8')) as T);
  }

  put(key: string, value: unknown): Promise<void> {
    return this.storage.put(this.prefix + key, Buffer.from(JSON.stringify(value), 'utf8'));
  }

  delete(key: string): Promise<void> {
    return this.storage.delete(this.prefix + key);
  }

  /** Keys under prefix, relative to prefix, sorted. */
  async list(prefix = ''): Promise<string[]> {
    const full = this.prefix + prefix;
    return (await this.storage.list(full)).map((k) => k.slice(full.length));
  }

  /** Immediate children under prefix: names, with a trailing "/" for sub-folders (Vault's List). */
  async children(prefix = ''): Promise<string[]> {
    const out = new Set<string>();
    for (const k of await this.list(prefix)) {
      const i = k.indexOf('/');
      out.add(i === -1 ? k : k.slice(0, i + 1));
    }
    return [...out].sort();
  }

  batch(ops: JsonStoreOp[]): Promise<void> {
    return this.storage.batch(
      ops.map((op) =>
        op.type === 'put' ? { type: 'put', key: this.prefix + op.key, value: Buffer.from(JSON.stringify(op.value), 'utf8') } : { type: 'delete', key: this.prefix + op.key },
      ),
    );
  }

  deletePrefix(prefix = ''): Promise<void> {
    return this.storage.deletePrefix(this.prefix + prefix);
  }
}
