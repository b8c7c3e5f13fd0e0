// When a config's backups are stale: no verified snapshot for more than two intervals (since the
// last one, or since the config was written when there never was one). One rule for the agent's
// metrics, its notifications and `keyward status`. A skipped or failed attempt changes nothing
// here: only a stored, verified snapshot resets it.

import type { StatusRecord } from './records';

/** Intervals without a verified snapshot after which a config is stale. */
export const STALE_AFTER_INTERVALS = 2;

export function staleSince(intervalSeconds: number, status: StatusRecord | undefined, writtenAt: number): number {
  return (status?.last_success_end ?? writtenAt) + STALE_AFTER_INTERVALS * intervalSeconds * 1000;
}

export function isStale(intervalSeconds: number, status: StatusRecord | undefined, writtenAt: number, now: number): boolean {
  return now > staleSince(intervalSeconds, status, writtenAt);
}
