// Waiting in tests for something that happens on its own (a scheduler tick, a rotation, a socket
// event): poll a condition with a deadline, and fail naming what was awaited and the last value
// seen, instead of hanging until Jest's timeout.

export interface PollOptions {
  /** Give up after this long (default 20 s). */
  timeoutMs?: number;
  /** Pause between checks; 0 yields one event-loop turn (setImmediate), for work a ManualClock drives. */
  intervalMs?: number;
}

const pause = (ms: number): Promise<void> => new Promise<void>((r) => (ms === 0 ? setImmediate(r) : setTimeout(r, ms)));

/** Calls `get` until `ok` accepts its value (by default: until it is truthy) and returns that value. */
export async function until<T>(what: string, get: () => T | Promise<T>, ok: (v: T) => boolean = Boolean, options: PollOptions = {}): Promise<T> {
  const { timeoutMs = 20_000, intervalMs = 20 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last value: ${JSON.stringify(v)})`);
    await pause(intervalMs);
  }
}
