// A fault-injecting HTTP proxy for reconciler tests: forwards to a target, but a seeded fraction
// of requests gets a 500, or the connection dropped before forwarding, or dropped after the
// target handled it (the write happened, the answer is lost).

import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FaultProxy {
  url: string;
  stats: { requests: number; faults500: number; droppedBefore: number; droppedAfter: number };
  /** Fault probability; may be changed while running. */
  rate: number;
  close(): Promise<void>;
}

/** Small deterministic PRNG (mulberry32), so a failing run can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Rewrites a request body on its way to the target (a server that ignores a field, say). */
export type BodyRewrite = (method: string, path: string, body: string) => string;

export async function startFaultProxy(target: string, rate: number, seed = 42, rewrite?: BodyRewrite): Promise<FaultProxy> {
  const rnd = prng(seed);
  const t = new URL(target);
  const proxy: FaultProxy = { url: '', stats: { requests: 0, faults500: 0, droppedBefore: 0, droppedAfter: 0 }, rate, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    proxy.stats.requests++;
    const roll = rnd();
    const fault = roll < proxy.rate ? Math.floor((roll / proxy.rate) * 3) : -1;
    if (fault === 0) {
      proxy.stats.faults500++;
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"errors":["injected fault"]}');
      req.resume();
      return;
    }
    if (fault === 1) {
      proxy.stats.droppedBefore++;
      req.socket.destroy();
      return;
    }
    const up = httpRequest({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers }, (upRes) => {
      if (fault === 2) {
        proxy.stats.droppedAfter++;
        upRes.resume();
        upRes.on('end', () => req.socket.destroy());
        return;
      }
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    });
    up.on('error', () => req.socket.destroy());
    if (!rewrite) {
      req.pipe(up);
      return;
    }
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const out = rewrite(req.method ?? '', req.url ?? '', body);
      up.setHeader('content-length', Buffer.byteLength(out));
      up.end(out);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return proxy;
}
