// An HTTP front on a loopback port that forwards every request to `target`, unless `intercept`
// takes it (returns true): for tests that make a server drop or hold some requests.

import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ForwardingFront {
  url: string;
  close(): Promise<void>;
}

export async function forwardingFront(target: string, intercept: (req: IncomingMessage, res: ServerResponse) => boolean = () => false): Promise<ForwardingFront> {
  const t = new URL(target);
  const server: Server = createServer((req, res) => {
    if (intercept(req, res)) return;
    const up = httpRequest({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
