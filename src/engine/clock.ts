// Injected time: the system clock in production, a manual clock in tests so TTLs, expiry and
// schedules are deterministic without sleeping.

export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs fn once after ms (by this clock's notion of time). */
  setTimer(ms: number, fn: () => void): TimerHandle;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, fn) {
    // Node caps timers at 2^31-1 ms; re-arm for longer waits.
    const MAX = 2 ** 31 - 1;
    let handle: NodeJS.Timeout;
    const due = Date.now() + ms;
    const arm = () => {
      const left = due - Date.now();
      handle = setTimeout(left > MAX ? arm : fn, Math.max(0, Math.min(left, MAX)));
      handle.unref?.();
    };
    arm();
    return { cancel: () => clearTimeout(handle) };
  },
};

interface PendingTimer {
  due: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** A clock that moves only when told to; timers fire in due order during advance(). */
export class ManualClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: PendingTimer[] = [];

  constructor(start: number | Date = Date.UTC(2026, 0, 1)) {
    this.t = typeof start === 'number' ? start : start.getTime();
  }

  now(): number {
    return this.t;
  }

  setTimer(ms: number, fn: () => void): TimerHandle {
    const timer: PendingTimer = { due: this.t + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => void (timer.cancelled = true) };
  }

  /** Number of timers still waiting. */
  pending(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /**
   * Moves time forward by ms, firing due timers in order. Between timers it yields to the event
   * loop so async work started by a timer can settle (and schedule further timers).
   */
  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    for (;;) {
      await settle();
      this.timers = this.timers.filter((x) => !x.cancelled);
      this.timers.sort((a, b) => a.due - b.due || a.seq - b.seq);
      const next = this.timers[0];
      if (!next || next.due > target) break;
      this.timers.shift();
      this.t = Math.max(this.t, next.due);
      next.fn();
    }
    this.t = target;
    await settle();
  }

  /** Sets the absolute time (only forward), firing due timers. */
  async set(at: number | Date): Promise<void> {
    const ms = (typeof at === 'number' ? at : at.getTime()) - this.t;
    if (ms > 0) await this.advance(ms);
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
}
