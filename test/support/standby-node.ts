// A standby node in front of an active server, as Vault's http/handler.go behaves when it does not
// forward: sys/health answers 429 (standby) or 473 (performance standby) with the active node's
// health body, and every other request gets `307 Temporary Redirect` with a Location on the active
// node (same path and query). It records what it saw (method, path, whether a token came).

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

export interface StandbyNode {
  url: string;
  seen: Array<{ method: string; path: string; token: boolean }>;
  close(): Promise<void>;
}

export async function startStandbyNode(o: { active: string; healthStatus?: 429 | 473; redirectStatus?: 307 | 308; location?: (path: string) => string }): Promise<StandbyNode> {
  const seen: StandbyNode['seen'] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = req.url ?? '/';
      seen.push({ method: req.method ?? '', path, token: req.headers['x-vault-token'] !== undefined });
      if (path.startsWith('/v1/sys/health')) {
        request(`${o.active}/v1/sys/health`).then(
          async (h) => {
            const body = await h.body.text();
            res.writeHead(o.healthStatus ?? 429, { 'content-type': 'application/json' }).end(body);
          },
          () => res.writeHead(500).end(),
        );
        return;
      }
      res.writeHead(o.redirectStatus ?? 307, { location: o.location ? o.location(path) : `${o.active}${path}` }).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
