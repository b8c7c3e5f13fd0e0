// The encryption barrier: a Storage that seals every value (AES-256-GCM, the key path as associated
// data) before it reaches the physical store, so nothing readable lands on disk.

import type { Storage, StorageEntry, StorageOp, StorageSnapshot } from './storage';
import type { AesSeal } from '../seal/aes-seal';

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
  /** Entries stay sealed: a snapshot is only restorable with the same seal key. */
  snapshot(): Promise<StorageSnapshot> {
    return this.physical.snapshot();
  }
  replaceAll(entries: AsyncIterable<StorageEntry>) {
    return this.physical.replaceAll(entries);
  }
  close() {
    return this.physical.close();
  }
}
