// A small TTL cache with a bounded entry count, driven by an injected clock, so provider lookups
// are reused for a bounded lifetime and tests can expire them without sleeping. Concurrent misses
// for the same key share one in-flight load.

/** Only what the cache needs of a clock (the engine's Clock satisfies it). */
export interface NowSource {
  now(): number;
}

export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  private readonly inflight = new Map<string, Promise<V>>();

  constructor(
    private readonly clock: NowSource,
    private readonly maxEntries = 1000,
  ) {}

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expires <= this.clock.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries && !this.entries.has(key)) {
      // Evict the oldest insertion (Map keeps insertion order).
      const first = this.entries.keys().next();
      if (!first.done) this.entries.delete(first.value);
    }
    this.entries.set(key, { value, expires: this.clock.now() + ttlMs });
  }

  /** Returns the cached value or loads it once; load returns the value and its lifetime in ms. */
  async getOrLoad(key: string, load: () => Promise<{ value: V; ttlMs: number }>): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    return this.reload(key, load);
  }

  /** Loads a fresh value even when one is cached; concurrent reloads of one key share one load. */
  reload(key: string, load: () => Promise<{ value: V; ttlMs: number }>): Promise<V> {
    const running = this.inflight.get(key);
    if (running) return running;
    const p = load()
      .then(({ value, ttlMs }) => {
        this.set(key, value, ttlMs);
        return value;
      })
      .finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  clear(): void {
    this.entries.clear();
  }
}
