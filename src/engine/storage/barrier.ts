// The encryption barrier: a Storage that seals every value (AES-256-GCM, the key path as associated
// data) before it reaches the physical store, so nothing readable lands on disk.

import type { Storage, StorageEntry, StorageOp, StorageSnapshot } from './storage';
import { SEAL_OVERHEAD, type AesSeal } from '../seal/aes-seal';

export class BarrierStorage implements Storage {
  constructor(
    private readonly physical: Storage,
    private readonly seal: AesSeal,
  ) {}

  async get(key: string) {
    const v = await this.physical.get(key);
    return v === undefined ? undefined : this.seal.decrypt(v, key);
  }
  put(key: string, value: Buffer) {
    return this.physical.put(key, this.seal.encrypt(value, key));
  }
  delete(key: string) {
    return this.physical.delete(key);
  }
  list(prefix: string) {
    return this.physical.list(prefix);
  }
  batch(ops: StorageOp[]) {
    return this.physical.batch(ops.map((op) => (op.type === 'put' ? { ...op, value: this.seal.encrypt(op.value, op.key) } : op)));
  }
  deletePrefix(prefix: string) {
    return this.physical.deletePrefix(prefix);
  }
  /** Decrypted view. (Backups read the physical store instead, so archives stay sealed.) */
  async snapshot(): Promise<StorageSnapshot> {
    const inner = await this.physical.snapshot();
    const seal = this.seal;
    return {
      count: inner.count,
      bytes: inner.bytes - inner.count * SEAL_OVERHEAD,
      close: () => inner.close(),
      async *[Symbol.asyncIterator]() {
        for await (const e of inner) yield { key: e.key, value: seal.decrypt(e.value, e.key) };
      },
    };
  }
  replaceAll(entries: AsyncIterable<StorageEntry>) {
    const seal = this.seal;
    async function* sealed() {
      for await (const e of entries) yield { key: e.key, value: seal.encrypt(e.value, e.key) };
    }
    return this.physical.replaceAll(sealed());
  }
  close() {
    return this.physical.close();
  }
}
