// How long the client waits for a server: the per-attempt timeout and the retry budget, with
// defaults that end a request to a hung server within about 30 s (3 attempts of 10 s), read from
// VAULT_CLIENT_TIMEOUT and VAULT_MAX_RETRIES the way Vault's Go client (api.Config.ReadEnvironment)
// reads them: the timeout as integer seconds or a Go duration ("60s", "1m30s", "500ms"), the
// retries as a count of retries after the first attempt (0 = one attempt).

import { goDurationSeconds } from '../schema/duration';

/** Per-attempt timeout (connect, response headers, each body read) when nothing sets one. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Retries after the first attempt when nothing sets them (Vault's client default). */
export const DEFAULT_MAX_RETRIES = 2;

/** Parses a timeout as Vault does (seconds or a Go duration) into milliseconds; `what` names the setting in errors. */
export function parseTimeoutMs(input: string | number, what: string): number {
  const s = String(input).trim();
  const seconds = /^\d+$/.test(s) ? Number(s) : goDurationSeconds(s);
  const ms = seconds === undefined ? undefined : seconds * 1000;
  if (ms === undefined || !Number.isFinite(ms)) {
    throw new Error(`${what}: must be seconds or a duration such as "10s", "1m" or "500ms", got ${JSON.stringify(input)}`);
  }
  if (ms < 1) throw new Error(`${what}: must be more than zero, got ${JSON.stringify(input)}`);
  return Math.round(ms);
}

/** Parses a retry count (a non-negative integer); `what` names the setting in errors. */
export function parseMaxRetries(input: string | number, what: string): number {
  const s = String(input).trim();
  if (!/^\d+$/.test(s) || Number(s) > 100) throw new Error(`${what}: must be a whole number of retries from 0 to 100, got ${JSON.stringify(input)}`);
  return Number(s);
}

/** The timeout and retries from VAULT_CLIENT_TIMEOUT and VAULT_MAX_RETRIES (undefined when unset or empty). */
export function timeBoundsFromEnv(env: NodeJS.ProcessEnv): { timeoutMs?: number; maxRetries?: number } {
  const t = env.VAULT_CLIENT_TIMEOUT?.trim();
  const r = env.VAULT_MAX_RETRIES?.trim();
  return {
    timeoutMs: t ? parseTimeoutMs(t, 'VAULT_CLIENT_TIMEOUT') : undefined,
    maxRetries: r ? parseMaxRetries(r, 'VAULT_MAX_RETRIES') : undefined,
  };
}

/** A timeout for humans: "10s", "1.5s", "250ms". */
export function formatTimeout(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  return `${Number((ms / 1000).toFixed(3))}s`;
}
