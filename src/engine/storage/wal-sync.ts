// Group fsync of SQLite's write-ahead log on libuv's thread pool. Commits run with
// synchronous=NORMAL (crash-consistent; SQLite still syncs around checkpoints) and are acknowledged
// only after an fdatasync of the WAL that started after them, so acknowledged writes are durable
// while the event loop keeps serving requests during the flush. A few flushes may run at once, so a
// commit made while one is running does not wait for it to end before its own flush can start
// (an fsync here takes milliseconds; commits come every few hundred microseconds under load).

import { close, fdatasync, openSync } from 'node:fs';

export interface WalSyncOptions {
  /** Flushes allowed to run at once (default 2). */
  maxInFlight?: number;
  /** node:fs fdatasync; tests pass one that holds or fails the flush. */
  fdatasync?: (fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => void;
}

interface Waiter {
  resolve: () => void;
  reject: (e: Error) => void;
}

export class WalSync {
  private fd: number | undefined;
  /** Flushes not yet settled, oldest first, with the commits each one covers. */
  private flights: { waiters: Waiter[] }[] = [];
  /** fdatasync calls still running (a settled flight's call may still be running). */
  private running = 0;
  private waiting: Waiter[] = [];
  private failure: Error | undefined;
  private drained: (() => void)[] = [];

  private readonly maxInFlight: number;
  private readonly fdatasync: NonNullable<WalSyncOptions['fdatasync']>;

  /** @param onSlotFree called whenever a flush ends, so a caller holding commits can go on. */
  constructor(
    private readonly walPath: string,
    options: WalSyncOptions = {},
    private readonly onSlotFree: () => void = () => undefined,
  ) {
    this.maxInFlight = options.maxInFlight ?? 2;
    this.fdatasync = options.fdatasync ?? fdatasync;
  }

  /** True while as many flushes run as allowed: callers may hold their commits until one ends. */
  get saturated(): boolean {
    return this.running >= this.maxInFlight;
  }

  /** Set once a flush has failed: from then on nothing may be committed or acknowledged. */
  get failed(): Error | undefined {
    return this.failure;
  }

  /** Resolves once everything committed before the call is on disk. */
  sync(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (!this.saturated) this.start();
    });
  }

  /** Waits for every flush to end, then releases the file. */
  async close(): Promise<void> {
    if (this.running > 0) await new Promise<void>((resolve) => this.drained.push(resolve));
    if (this.fd !== undefined) close(this.fd, () => undefined);
    this.fd = undefined;
  }

  private start(): void {
    const flight = { waiters: this.waiting };
    this.waiting = [];
    let fd: number;
    try {
      // Opened lazily: the WAL exists once the first commit has written to it. Any descriptor of the
      // file will do, since fdatasync flushes the file, not the descriptor.
      fd = this.fd ??= openSync(this.walPath, 'r');
    } catch (e) {
      this.fail(flight.waiters, e as Error);
      return;
    }
    this.flights.push(flight);
    this.running++;
    this.fdatasync(fd, (err) => {
      this.running--;
      if (err) this.fail([], err);
      else {
        // A flush covers every commit made before it started, so it settles older flights too.
        const i = this.flights.indexOf(flight);
        for (const f of this.flights.splice(0, i + 1)) for (const w of f.waiters) w.resolve();
      }
      if (this.waiting.length > 0 && !this.failure && !this.saturated) this.start();
      if (this.running === 0) this.drained.splice(0).forEach((f) => f());
      this.onSlotFree();
    });
  }

  /**
   * After a failed fsync the kernel may have dropped the dirty pages, so a later fsync could succeed
   * without the data: stop acknowledging writes at all rather than risk a false acknowledgement.
   */
  private fail(first: Waiter[], cause: Error): void {
    this.failure ??= new Error(`storage is unavailable: flushing the write-ahead log failed: ${cause.message}`);
    const all = [...first, ...this.flights.flatMap((f) => f.waiters), ...this.waiting];
    this.flights = [];
    this.waiting = [];
    for (const w of all) w.reject(this.failure);
  }
}
