// The overall deadline of one automated snapshot attempt: a store that accepts the connection and
// then stalls must end the attempt (an error in the status) instead of holding it forever.

/** Tunables of the attempt deadline; tests shorten the floor so a stall is detected quickly. */
export interface DeadlinePolicy {
  /** Shortest deadline whatever the interval (default 60 s). */
  floorMs: number;
  /** Longest interval-derived part (default 15 min): a daily config must not stall for a day. */
  intervalCapMs: number;
  /** Slowest accepted transfer rate; the archive size adds size / rate (default 1 MiB/s). */
  minBytesPerSecond: number;
}

export const DEFAULT_DEADLINE: DeadlinePolicy = { floorMs: 60_000, intervalCapMs: 15 * 60_000, minBytesPerSecond: 1024 * 1024 };

/** Env knob for the floor (ms): operators with very slow links raise it, process tests lower it. */
export const DEADLINE_FLOOR_ENV = 'KEYWARD_SNAPSHOT_ATTEMPT_FLOOR_MS';

export function deadlinePolicyFromEnv(env: NodeJS.ProcessEnv = process.env): DeadlinePolicy {
  const raw = env[DEADLINE_FLOOR_ENV];
  const floor = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(floor) && floor > 0 ? { ...DEFAULT_DEADLINE, floorMs: floor } : DEFAULT_DEADLINE;
}

/** Deadline in ms from the attempt's start: the interval (floored, capped) plus time for the bytes. */
export function attemptDeadlineMs(intervalSeconds: number, archiveBytes: number, p: DeadlinePolicy): number {
  const base = Math.max(p.floorMs, Math.min(intervalSeconds * 1000, p.intervalCapMs));
  return base + Math.ceil((archiveBytes / p.minBytesPerSecond) * 1000);
}

/** The error an attempt ends with when its deadline passes (the status shows its message). */
export class AttemptDeadlineError extends Error {
  constructor(ms: number) {
    super(`the attempt did not finish within its deadline of ${Math.round(ms / 1000)} s (the store stopped responding); it was aborted`);
    this.name = 'AttemptDeadlineError';
  }
}

/** Rejects as soon as `signal` aborts, whether or not the SDK behind `p` honours the signal. */
export function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    p.catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e as Error);
      },
    );
  });
}
