// Time bounds of the client: VAULT_CLIENT_TIMEOUT / VAULT_MAX_RETRIES read as Vault's client reads
// them, defaults that end a request to a hung server in about 30 s, an error naming the method, the
// URL and what was waited for, and an AbortSignal that ends requests in flight at once.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { VaultClient } from '../../../src/client/vault-client';
import { settingsFromEnv } from '../../../src/client/options';
import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, parseMaxRetries, parseTimeoutMs, timeBoundsFromEnv } from '../../../src/client/time-bounds';
import { until } from '../../support/poll';

let hung: Server;
let url: string;
let received = 0;

beforeAll(async () => {
  // Reads each request and never answers: a stopped server as the client sees it.
  hung = createServer(() => void received++);
  await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
});
afterAll(async () => {
  hung.closeAllConnections();
  await new Promise((r) => hung.close(r));
});
beforeEach(() => {
  received = 0;
});

test('VAULT_CLIENT_TIMEOUT is seconds or a Go duration; VAULT_MAX_RETRIES a count of retries', () => {
  expect(parseTimeoutMs('60', 'X')).toBe(60_000);
  expect(parseTimeoutMs('60s', 'X')).toBe(60_000);
  expect(parseTimeoutMs('1m30s', 'X')).toBe(90_000);
  expect(parseTimeoutMs('250ms', 'X')).toBe(250);
  expect(parseTimeoutMs(7, 'X')).toBe(7000);
  expect(() => parseTimeoutMs('ten', 'VAULT_CLIENT_TIMEOUT')).toThrow(/^VAULT_CLIENT_TIMEOUT: must be seconds or a duration such as "10s".*"ten"/);
  expect(() => parseTimeoutMs('0', 'VAULT_CLIENT_TIMEOUT')).toThrow(/must be more than zero/);
  expect(parseMaxRetries('0', 'X')).toBe(0);
  expect(parseMaxRetries(' 5 ', 'X')).toBe(5);
  expect(() => parseMaxRetries('-1', 'VAULT_MAX_RETRIES')).toThrow(/^VAULT_MAX_RETRIES: must be a whole number of retries/);
  expect(timeBoundsFromEnv({ VAULT_CLIENT_TIMEOUT: '45s', VAULT_MAX_RETRIES: '4' })).toEqual({ timeoutMs: 45_000, maxRetries: 4 });
  expect(timeBoundsFromEnv({ VAULT_CLIENT_TIMEOUT: '', VAULT_MAX_RETRIES: '' })).toEqual({ timeoutMs: undefined, maxRetries: undefined });
});

test('settings: explicit values, then the environment, then 10 s and 2 retries (3 attempts in all: about 30 s)', () => {
  expect(DEFAULT_TIMEOUT_MS * (DEFAULT_MAX_RETRIES + 1)).toBe(30_000);
  expect(settingsFromEnv({}, {})).toMatchObject({ timeoutMs: 10_000, retry: { attempts: 3 } });
  expect(settingsFromEnv({}, { VAULT_CLIENT_TIMEOUT: '3', VAULT_MAX_RETRIES: '0' })).toMatchObject({ timeoutMs: 3000, retry: { attempts: 1 } });
  expect(settingsFromEnv({ timeoutMs: 500, maxRetries: 6 }, { VAULT_CLIENT_TIMEOUT: '3', VAULT_MAX_RETRIES: '0' })).toMatchObject({ timeoutMs: 500, retry: { attempts: 7 } });
  expect(() => settingsFromEnv({}, { VAULT_MAX_RETRIES: 'many' })).toThrow(/VAULT_MAX_RETRIES/);
});

test('a hung server: every attempt ends at the timeout, and the error names method, URL, the wait and the attempts', async () => {
  const c = new VaultClient({
    ...settingsFromEnv({ address: url, token: 'secret-token', dialect: 'keyward' }, { VAULT_CLIENT_TIMEOUT: '300ms', VAULT_MAX_RETRIES: '2' }),
    retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
  });
  const started = Date.now();
  const e = (await c.read('sys/auth').catch((x: unknown) => x)) as Error;
  const took = Date.now() - started;
  expect(e.message).toBe(`GET ${url}/v1/sys/auth: no response headers within 300ms (attempt 3 of 3)`);
  expect(e.message).not.toContain('secret-token');
  expect(received).toBe(3);
  expect(took).toBeGreaterThanOrEqual(900);
  expect(took).toBeLessThan(5000);
  await c.close();
});

test('aborting the signal ends a request in flight at once, and later requests do not start', async () => {
  const stop = new AbortController();
  const c = new VaultClient({ address: url, dialect: 'keyward', timeoutMs: 60_000, retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 }, signal: stop.signal });
  const pending = c.read('sys/auth').catch((x: unknown) => x);
  await until('the server to receive the request', () => received === 1, Boolean, { timeoutMs: 5000, intervalMs: 10 });
  const started = Date.now();
  stop.abort();
  const e = (await pending) as Error;
  expect(Date.now() - started).toBeLessThan(1000);
  expect(e).toMatchObject({ cancelled: true, status: 0 });
  expect(e.message).toBe(`GET ${url}/v1/sys/auth: cancelled (Terraform asked the provider to stop)`);
  await expect(c.read('auth/cloud/config')).rejects.toMatchObject({ cancelled: true });
  expect(received).toBe(1);
  await c.close();
});

test('aborting during the wait before a retry ends it at once', async () => {
  const stop = new AbortController();
  const c = new VaultClient(
    { address: 'http://127.0.0.1:1', dialect: 'keyward', retry: { attempts: 5, baseDelayMs: 60_000, maxDelayMs: 60_000 }, signal: stop.signal },
    { random: () => 1, onRetry: () => setImmediate(() => stop.abort()) },
  );
  const started = Date.now();
  await expect(c.read('sys/auth')).rejects.toMatchObject({ cancelled: true, attempts: 1 });
  expect(Date.now() - started).toBeLessThan(5000);
  await c.close();
});
