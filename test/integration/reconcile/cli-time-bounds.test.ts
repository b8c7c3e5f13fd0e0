// `keyward plan` against a server that never answers ends after VAULT_MAX_RETRIES retries of
// VAULT_CLIENT_TIMEOUT each (read as Vault's client reads them), naming the URL and the wait.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runKeyward } from '../../support/keyward-in-process';
import { manifest } from './helpers';

let hung: Server;
let url: string;
let dir: string;
const saved = { ...process.env };

beforeAll(async () => {
  hung = createServer(() => undefined);
  await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'kw-cli-bounds-'));
  writeFileSync(join(dir, 'm.json'), JSON.stringify(manifest({ authBackends: [{ type: 'cloud', path: 'cloud', roles: [] }] } as never)));
});
afterAll(async () => {
  process.env = saved;
  hung.closeAllConnections();
  await new Promise((r) => hung.close(r));
  rmSync(dir, { recursive: true, force: true });
});

it('VAULT_CLIENT_TIMEOUT and VAULT_MAX_RETRIES bound how long keyward plan waits', async () => {
  process.env.VAULT_TOKEN = 'secret-cli-token';
  process.env.VAULT_CLIENT_TIMEOUT = '300ms';
  process.env.VAULT_MAX_RETRIES = '1';
  const started = Date.now();
  const r = await runKeyward('plan', '--manifest', join(dir, 'm.json'), '--address', url, '--dialect', 'keyward');
  expect(r.code).toBe(1);
  expect(r.err).toMatch(new RegExp(`GET ${url}/v1/\\S+: no response headers within 300ms \\(attempt 2 of 2\\)`));
  expect(r.err).toMatch(/retry GET \/v1\/\S+: attempt 1 got no response/);
  expect(r.all).not.toContain('secret-cli-token');
  expect(Date.now() - started).toBeLessThan(10_000);
}, 30_000);

it('a bad VAULT_MAX_RETRIES is refused by name', async () => {
  process.env.VAULT_MAX_RETRIES = 'lots';
  const r = await runKeyward('plan', '--manifest', join(dir, 'm.json'), '--address', url, '--dialect', 'keyward');
  expect(r.code).toBe(1);
  expect(r.err).toContain('VAULT_MAX_RETRIES: must be a whole number of retries from 0 to 100, got "lots"');
});
