// In-memory storage: for unit tests of handlers and as the reference implementation the
// conformance suite is checked against.

import type { Storage, StorageEntry, StorageOp, StorageSnapshot } from './storage';

export class MemoryStorage implements Storage {
  private data = new Map<string, Buffer>();

  async get(key: string) {
    const v = this.data.get(key);
    return v === undefined ? undefined : Buffer.from(v);
  }
  async put(key: string, value: Buffer) {
    this.data.set(key, Buffer.from(value));
  }
  async delete(key: string) {
    this.data.delete(key);
  }
  async list(prefix: string) {
    return [...this.data.keys()].filter((k) => k.startsWith(prefix)).sort();
  }
  async batch(ops: StorageOp[]) {
    for (const op of ops) {
      if (op.type === 'put') this.data.set(op.key, Buffer.from(op.value));
      else this.data.delete(op.key);
    }
  }
  async deletePrefix(prefix: string) {
    for (const k of [...this.data.keys()]) if (k.startsWith(prefix)) this.data.delete(k);
  }
  async snapshot(): Promise<StorageSnapshot> {
    const entries = [...this.data.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    let closed = false;
    return {
      count: entries.length,
      bytes: entries.reduce((n, [k, v]) => n + Buffer.byteLength(k, 'utf8') + v.length, 0),
      close: () => void (closed = true),
      async *[Symbol.asyncIterator]() {
        for (const [key, value] of entries) {
          if (closed) return;
          yield { key, value };
        }
      },
    };
  }
  async replaceAll(entries: AsyncIterable<StorageEntry>) {
    const next = new Map<string, Buffer>();
    for await (const e of entries) next.set(e.key, Buffer.from(e.value));
    this.data = next;
  }
  async close() {}
}
