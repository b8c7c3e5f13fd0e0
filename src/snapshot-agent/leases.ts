// Which agent takes a config's attempt: a lease per slot (the attempt's scheduled time) held as a
// chain of create-if-absent records "lease/<name>/<slot>-<generation>". The highest generation is
// the lease; it is valid until its expires_at. Taking over an expired lease and renewing one's own
// are the same step, creating the next generation, and the store lets exactly one creation of a
// key succeed: two agents never both hold a slot, and a killed agent's lease simply expires.

import { randomUUID } from 'node:crypto';
import type { Clock, TimerHandle } from '../engine/clock';
import type { Logger } from '../engine/log';
import type { AttemptClaim, AttemptCoordinator } from '../engine/snapshot/coordination';
import type { StateStore } from './state-store';

interface LeaseRecord {
  owner: string;
  expires_at: number;
}

export interface LeaseOptions {
  /** Lease length for a config of this interval (ms). Default: half the interval, 1 s to 30 s. */
  ttlMs?: (intervalSeconds: number) => number;
}

export function defaultLeaseTtlMs(intervalSeconds: number): number {
  // Short enough that another agent takes a killed agent's slot well within one interval.
  return Math.min(30_000, Math.max(1_000, (intervalSeconds * 1000) / 2));
}

const GEN_DIGITS = 8;
const genKey = (name: string, slot: number, gen: number) => `lease/${name}/${slot}-${String(gen).padStart(GEN_DIGITS, '0')}`;

export class LeaseCoordinator implements AttemptCoordinator {
  /** This agent's identity in lease records (no secret: a random id per process). */
  readonly owner = randomUUID();
  private readonly ttl: (intervalSeconds: number) => number;

  constructor(
    private readonly state: StateStore,
    private readonly clock: Clock,
    private readonly log: Logger,
    o: LeaseOptions = {},
  ) {
    this.ttl = o.ttlMs ?? defaultLeaseTtlMs;
  }

  retryMs(intervalSeconds: number): number {
    return Math.max(250, Math.floor(this.ttl(intervalSeconds) / 2));
  }

  async claim(name: string, slot: number, intervalSeconds: number): Promise<AttemptClaim | undefined> {
    const ttl = this.ttl(intervalSeconds);
    const prefix = `lease/${name}/${slot}-`;
    const keys = await this.state.list(prefix);
    let next = 0;
    if (keys.length > 0) {
      const latest = keys[keys.length - 1];
      const rec = await this.readLease(latest);
      if (rec && rec.expires_at > this.clock.now()) return undefined;
      next = Number(latest.slice(prefix.length)) + 1;
    }
    if (!(await this.create(name, slot, next, ttl))) return undefined;
    return this.hold(name, slot, next, ttl);
  }

  private async readLease(key: string): Promise<LeaseRecord | undefined> {
    const raw = await this.state.get(key);
    if (!raw) return undefined;
    try {
      return JSON.parse(raw.toString('utf8')) as LeaseRecord;
    } catch {
      return undefined; // unreadable: treated as expired
    }
  }

  private create(name: string, slot: number, gen: number, ttl: number): Promise<boolean> {
    const rec: LeaseRecord = { owner: this.owner, expires_at: this.clock.now() + ttl };
    return this.state.createExclusive(genKey(name, slot, gen), Buffer.from(JSON.stringify(rec), 'utf8'));
  }

  /** Renews every third of the lease; a renewal that finds the next generation taken means lost. */
  private hold(name: string, slot: number, gen: number, ttl: number): AttemptClaim {
    const lost = new AbortController();
    let expiresAt = this.clock.now() + ttl;
    let timer: TimerHandle | undefined;
    let released = false;
    const renew = async () => {
      if (released) return;
      try {
        if (await this.create(name, slot, gen + 1, ttl)) {
          gen++;
          expiresAt = this.clock.now() + ttl;
        } else {
          lost.abort();
          return;
        }
      } catch (e) {
        // The store did not answer: keep trying while the lease is still ours.
        this.log.warn('snapshot lease renewal failed', { name, error: (e as Error).message });
        if (this.clock.now() >= expiresAt) {
          lost.abort();
          return;
        }
      }
      arm();
    };
    const arm = () => {
      if (!released) timer = this.clock.setTimer(Math.max(1, Math.floor(ttl / 3)), () => void renew());
    };
    arm();
    return {
      lost: lost.signal,
      release: async () => {
        released = true;
        timer?.cancel();
        // A lost lease's records are the new holder's. Otherwise the slot is done (its status is
        // stored): its chain and older slots' leftovers (a killed agent's) go.
        if (lost.signal.aborted) return;
        for (const key of await this.state.list(`lease/${name}/`)) {
          const keySlot = Number(key.slice(`lease/${name}/`.length).split('-')[0]);
          if (keySlot <= slot) await this.state.delete(key);
        }
      },
    };
  }
}
