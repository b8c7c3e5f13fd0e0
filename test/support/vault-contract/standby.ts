// A standby node that does not forward requests (Vault's http/handler.go, handleRequestForwarding
// with forwarding disabled → respondStandby): sys/health is answered locally, every other request
// gets `307 Temporary Redirect` with `Location` on the active node (same path and query, no body).

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Reply } from './http';

export async function startStandby(
  activeUrl: string,
  healthReply: (query: URLSearchParams) => Reply,
): Promise<{ url: string; requests: Array<{ method: string; path: string }>; close(): Promise<void> }> {
  const requests: Array<{ method: string; path: string }> = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      requests.push({ method: req.method ?? 'GET', path: url.pathname + url.search });
      if (url.pathname.replace(/\/+$/, '') === '/v1/sys/health') {
        const r = healthReply(url.searchParams);
        res.writeHead(r.status, { 'content-type': 'application/json' }).end(JSON.stringify(r.body));
        return;
      }
      res.writeHead(307, { location: `${activeUrl}${url.pathname}${url.search}`, 'cache-control': 'no-store' }).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
