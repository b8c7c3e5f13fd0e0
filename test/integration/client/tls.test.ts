// TLS options: a server with a private CA is trusted through the CA file, refused without it, and
// reachable with verification disabled (testing only).

import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VaultClient } from '../../../src/client/vault-client';
import { writeLoopbackCert } from '../../support/loopback-cert';

let server: Server;
let url: string;
let caFile: string;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-tls-'));
  caFile = join(dir, 'cert.pem');
  writeLoopbackCert(dir);
  server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(caFile) }, (_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"ok":true}}'),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const retry = { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 };

test('trusted through the CA file', async () => {
  const c = new VaultClient({ address: url, caFile, retry });
  expect(await c.read('sys/health')).toEqual({ ok: true });
  await c.close();
});

test('refused without it at once (no retries), with a status-0 error naming the path', async () => {
  const c = new VaultClient({ address: url, retry: { ...retry, attempts: 5 } });
  await expect(c.read('sys/health')).rejects.toMatchObject({ status: 0, method: 'GET', path: 'sys/health', attempts: 1 });
  await c.close();
});

test('reachable with verification disabled', async () => {
  const c = new VaultClient({ address: url, tlsSkipVerify: true, retry });
  expect(await c.read('sys/health')).toEqual({ ok: true });
  await c.close();
});
