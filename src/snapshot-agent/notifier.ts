// --notify-url: a JSON POST to each URL when an attempt fails (or is skipped), when a config
// recovers (a verified snapshot after failures) and when it turns stale (staleness.ts; once per
// stale spell). Sent by the agent that ran the attempt, from the scheduler's afterAttempt hook, so
// with several agents on one state each event is sent once; the "stale sent" mark travels in the
// stored status. Retried with backoff on the injected clock, in the background: a slow or dead
// receiver never holds a schedule. The body names the config, the server, the time and the error,
// never a token or a store credential (the error texts are the status texts, which hold none).

import { request } from 'undici';
import type { Clock } from '../engine/clock';
import type { Logger } from '../engine/log';
import type { StatusRecord } from '../engine/snapshot/records';
import { isStale } from '../engine/snapshot/staleness';
import type { SnapshotConfig } from '../schema/snapshot-config';

export type NotificationEvent = 'snapshot_failed' | 'snapshot_recovered' | 'snapshot_stale';

export interface Notification {
  event: NotificationEvent;
  config: string;
  /** The managed server's address. */
  server: string;
  /** The agent that ran the attempt (its lease owner id). */
  agent: string;
  /** RFC 3339 UTC. */
  time: string;
  /** The attempt's error ("" on recovery). */
  error: string;
  consecutive_errors: number;
  /** The last verified snapshot ("" when none yet). */
  last_good_snapshot_url: string;
  /** A one-line summary for chat receivers (Slack's and Mattermost's incoming webhooks show `text`). */
  text: string;
}

/** Attempts per notification and URL: the first plus retries after 1, 2, 4 and 8 s. */
export const NOTIFY_ATTEMPTS = 5;
const REQUEST_TIMEOUT_MS = 10_000;

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export class Notifier {
  /** POSTs on the wire (a delivery waiting out its backoff is not one). */
  private inFlight = new Set<Promise<unknown>>();

  constructor(private readonly o: { urls: string[]; server: string; agent: string; clock: Clock; log: Logger }) {
    for (const u of o.urls) {
      const p = new URL(u).protocol;
      if (p !== 'http:' && p !== 'https:') throw new Error(`--notify-url ${u}: only http and https URLs are supported`);
    }
  }

  /**
   * The scheduler's afterAttempt hook: decides the events of the attempt that just ended (the
   * status already updated, not yet persisted) and sends them. Marks a stale spell in `status`.
   */
  afterAttempt(name: string, config: SnapshotConfig, writtenAt: number, errorsBefore: number, status: StatusRecord): void {
    const now = this.o.clock.now();
    const failed = status.last_snapshot_error !== '' && status.last_snapshot_url === '';
    const events: NotificationEvent[] = [];
    if (failed) events.push('snapshot_failed');
    else if (errorsBefore > 0 && status.last_snapshot_url) events.push('snapshot_recovered');
    if (isStale(config.interval, status, writtenAt, now)) {
      if (!status.stale_notified) {
        status.stale_notified = true;
        events.push('snapshot_stale');
      }
    } else delete status.stale_notified;
    for (const event of events) this.send(this.message(event, name, status, now));
  }

  private message(event: NotificationEvent, config: string, s: StatusRecord, now: number): Notification {
    const error = event === 'snapshot_recovered' ? '' : (s.last_snapshot_error ?? '');
    const good = s.last_success_url ?? '';
    const what = {
      snapshot_failed: `snapshot of ${config} failed (${s.consecutive_errors} in a row): ${error}`,
      snapshot_recovered: `snapshot of ${config} recovered: ${s.last_snapshot_url}`,
      snapshot_stale: `snapshots of ${config} are STALE: no verified snapshot for more than two intervals (last good: ${good || 'none'})`,
    }[event];
    return {
      event,
      config,
      server: this.o.server,
      agent: this.o.agent,
      time: iso(now),
      error,
      consecutive_errors: s.consecutive_errors,
      last_good_snapshot_url: good,
      text: `keyward snapshot-agent (${this.o.server}): ${what}`,
    };
  }

  private send(n: Notification): void {
    const body = JSON.stringify(n);
    for (const url of this.o.urls) void this.deliver(url, body, n);
  }

  private async deliver(url: string, body: string, n: Notification): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      let problem: string;
      try {
        const posting = (async () => {
          const res = await request(url, {
            method: 'POST',
            body,
            headers: { 'content-type': 'application/json' },
            headersTimeout: REQUEST_TIMEOUT_MS,
            bodyTimeout: REQUEST_TIMEOUT_MS,
          });
          await res.body.dump();
          return res.statusCode;
        })();
        this.inFlight.add(posting);
        const status = await posting.finally(() => this.inFlight.delete(posting));
        if (status >= 200 && status < 300) return;
        problem = `status ${status}`;
      } catch (e) {
        problem = (e as Error).message;
      }
      if (attempt >= NOTIFY_ATTEMPTS) {
        this.o.log.warn('notification not delivered', { url: new URL(url).origin, event: n.event, config: n.config, error: problem });
        return;
      }
      await new Promise<void>((r) => this.o.clock.setTimer(1000 * 2 ** (attempt - 1), r));
    }
  }

  /** Resolves when no POST is on the wire (tests; shutdown does not wait for receivers). */
  async idle(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }
}
