// Retries end with the command: once a request got its definitive answer (a 4xx that ends the
// command) and the client is closed, a sibling request still in flight that then loses its
// connection is neither retried nor reported ("retry GET …: attempt N got no response" lines used
// to follow the fatal Error line). A real HTTP server on a loopback port.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpClient, type RetryEvent } from '../../../src/client/http';

let server: Server;
let url: string;
const seen: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    // A namespace the server does not have: the definitive answer.
    if (req.url === '/v1/sys/auth') return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":["namespace \\"platform/\\" not found"]}');
    // A sibling read the server drops after the 404 went out (as a closing keep-alive pool does).
    setTimeout(() => req.socket.destroy(), 150);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((ok) => server.close(ok)));

test('after the definitive 4xx and close(), an in-flight request that loses its connection is not retried and prints no retry line', async () => {
  const retries: RetryEvent[] = [];
  const client = new HttpClient({ address: url, token: 't', retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 } }, { onRetry: (e) => retries.push(e) });
  const sibling = client.request('GET', 'auth/cloud/roles?list=true').catch((e: unknown) => e);
  // As a command does: the first fatal error ends it, and its `finally` closes the client.
  await expect(client.request('GET', 'sys/auth')).rejects.toThrow(/HTTP 404: namespace "platform\/" not found/);
  await client.close();
  const late = await sibling;
  expect({ retries, late: late instanceof Error }).toEqual({ retries: [], late: true });
  expect(seen.filter((s) => s.includes('roles'))).toHaveLength(1);
  // The 4xx itself was sent once: a 4xx that ends the command is not retried.
  expect(seen.filter((s) => s.endsWith('/sys/auth'))).toHaveLength(1);
});
