// The agent's own token: VAULT_TOKEN, or a token file re-read whenever it changes (what Vault
// Agent's and OpenBao Agent's auto-auth file sinks write, replacing the token as they re-login).
// A renewable token is renewed at two thirds of its TTL, so the agent never holds an expired one.

import { readFile, stat } from 'node:fs/promises';
import type { Clock, TimerHandle } from '../engine/clock';
import type { Logger } from '../engine/log';
import type { ManagedServer } from './managed-server';

export interface TokenSourceOptions {
  /** A file holding the token (re-read when its size or mtime changes); else `envToken`. */
  file?: string;
  envToken?: string;
  clock: Clock;
  log: Logger;
  server: ManagedServer;
}

/** Retry delay after a failed lookup or renewal (the token may still be valid for a while). */
const RETRY_MS = 5_000;

export class TokenSource {
  private token = '';
  private fileStamp = '';
  private timer?: TimerHandle;
  private stopped = false;
  /** Renewals done (tests count them across several TTLs). */
  renewals = 0;
  /** The lookup or renewal in progress (tests on a manual clock wait for it). */
  private inFlight: Promise<void> = Promise.resolve();

  constructor(private readonly o: TokenSourceOptions) {}

  /** The token to use now (re-reads the file when it changed). Throws when there is none. */
  async current(): Promise<string> {
    if (this.o.file) {
      const s = await stat(this.o.file);
      const stamp = `${s.size}:${s.mtimeMs}`;
      if (stamp !== this.fileStamp) {
        const t = (await readFile(this.o.file, 'utf8')).trim();
        if (t !== this.token) {
          this.token = t;
          // A new token from the sink: its own TTL decides the next renewal.
          if (!this.stopped && this.timer) this.schedule(0);
        }
        this.fileStamp = stamp;
      }
    } else this.token = this.o.envToken ?? '';
    if (this.token === '') throw new Error(this.o.file ? `the token file ${this.o.file} is empty` : 'no token: set VAULT_TOKEN or --token-file');
    return this.token;
  }

  /** Looks the token up and keeps renewing it before it expires, until stop(). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.tick();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  /** Resolves once no lookup or renewal is in progress. */
  async idle(): Promise<void> {
    for (let p = this.inFlight; ; p = this.inFlight) {
      await p;
      if (p === this.inFlight) return;
    }
  }

  private schedule(ms: number): void {
    this.timer?.cancel();
    if (!this.stopped) this.timer = this.o.clock.setTimer(ms, () => void this.tick());
  }

  /** One lookup (or renewal when due); schedules the next at 2/3 of the remaining TTL. */
  private tick(renew = false): Promise<void> {
    const run = this.inFlight.then(() => this.runTick(renew));
    this.inFlight = run;
    return run;
  }

  private async runTick(renew: boolean): Promise<void> {
    if (this.stopped) return;
    try {
      const token = await this.current();
      const r = renew ? await this.o.server.renewSelf(token) : await this.o.server.lookupSelf(token);
      if (renew) this.renewals++;
      if (!r.renewable || r.ttl <= 0) {
        // A root or non-renewable token: nothing to renew; a file sink may still replace it.
        this.timer?.cancel();
        this.timer = this.o.clock.setTimer(this.o.file ? 60_000 : 2 ** 31 - 1, () => void this.tick());
        return;
      }
      this.timer?.cancel();
      this.timer = this.o.clock.setTimer(Math.max(1, Math.floor((r.ttl * 1000 * 2) / 3)), () => void this.tick(true));
    } catch (e) {
      this.o.log.warn('agent token lookup or renewal failed', { error: (e as Error).message });
      this.timer?.cancel();
      if (!this.stopped) this.timer = this.o.clock.setTimer(RETRY_MS, () => void this.tick(renew));
    }
  }
}
