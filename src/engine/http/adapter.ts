// The thin node:http adapter: socket in, EngineRequest to the core, EngineResponse back out.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Core } from '../core';
import type { Logger } from '../log';
import { serveListMethod } from './list-method';

function headersOf(req: IncomingMessage): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers)) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

export function createHttpServer(core: Core, log: Logger): Server {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    core
      .handle({
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: headersOf(req),
        body: req,
        remoteAddress: req.socket.remoteAddress ?? '',
      })
      .then((r) => {
        res.writeHead(r.status, r.headers);
        if (r.body === undefined) return void res.end();
        if (Buffer.isBuffer(r.body)) return void res.end(r.body);
        r.body.on('error', (e) => {
          log.error('response stream failed', { error: String(e) });
          res.destroy(e);
        });
        r.body.pipe(res);
      })
      .catch((e) => {
        log.error('adapter failure', { error: String(e) });
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"errors":["internal error"]}\n');
      });
  });
  serveListMethod(server, core);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}

/** Parses "127.0.0.1:8200", "[::1]:8200" or ":8200". */
export function parseListen(listen: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(listen.trim());
  if (!m) throw new Error(`invalid listen address ${JSON.stringify(listen)}: use host:port, e.g. 127.0.0.1:8200`);
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port: Number(m[3]) };
}

export async function listen(server: Server, address: string): Promise<string> {
  const { host, port } = parseListen(address);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const a = server.address() as AddressInfo;
  const h = a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return `http://${h}:${a.port}`;
}
