// Per-key mutual exclusion on the event loop: every read-modify-write of one record (a token's use
// count, a namespace id, a mount's config) runs alone, so it can never resurrect or overwrite a newer state.

export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs fn once every earlier holder of `key` has finished; holders of other keys run freely. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = before.then(() => mine);
    this.tails.set(key, tail);
    await before;
    try {
      return await fn();
    } finally {
      release();
      // Last in line: drop the entry so the map only holds keys with waiters.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
