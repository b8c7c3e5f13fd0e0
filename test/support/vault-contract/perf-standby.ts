// A performance standby of the contract cluster (Vault Enterprise; docs/enterprise/performance-
// standby, consistency.mdx, http/handler.go): requests that write are forwarded to the active node;
// reads are served from the node's own copy, which lags: for `lagMs` after a write it still answers
// what it saw before (stale), or 412 to a request carrying an X-Vault-Index it has not reached yet.
// Remount status is node-local (the migration tracker lives in the active node's memory): the
// node does not know the id, which Vault answers with a bare 404 (handleRemountStatusCheck: nil).

import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Reply } from './http';

export interface PerfStandbyOptions {
  /** How long the node's copy lags behind a write (default 300 ms). */
  lagMs?: number;
}

export async function startPerfStandby(
  activeUrl: string,
  healthReply: (query: URLSearchParams) => Reply,
  o: PerfStandbyOptions = {},
): Promise<{ url: string; requests: Array<{ method: string; path: string; index?: string }>; close(): Promise<void> }> {
  const lagMs = o.lagMs ?? 300;
  const requests: Array<{ method: string; path: string; index?: string }> = [];
  /** The node's copy: the last answer to each read, as of its last refresh. */
  const copy = new Map<string, { status: number; body: string; headers: Record<string, string> }>();
  let lastWrite = 0;
  const forward = async (req: IncomingMessage, path: string, body: string) => {
    const headers: Record<string, string> = {};
    for (const h of ['x-vault-token', 'x-vault-namespace', 'content-type']) if (typeof req.headers[h] === 'string') headers[h] = req.headers[h] as string;
    const r = await fetch(`${activeUrl}${path}`, { method: req.method, headers, body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body, redirect: 'manual' });
    const out: Record<string, string> = {};
    for (const h of ['content-type', 'x-vault-index', 'location']) {
      const v = r.headers.get(h);
      if (v) out[h] = v;
    }
    return { status: r.status, body: await r.text(), headers: out };
  };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://x');
        const path = url.pathname.replace(/\/+$/, '');
        const index = typeof req.headers['x-vault-index'] === 'string' ? (req.headers['x-vault-index'] as string) : undefined;
        requests.push({ method: req.method ?? 'GET', path: url.pathname + url.search, index });
        const send = (r: { status: number; body: string; headers: Record<string, string> }) => res.writeHead(r.status, r.headers).end(r.body);
        if (path === '/v1/sys/health') {
          const h = healthReply(url.searchParams);
          return send({ status: h.status, body: JSON.stringify(h.body), headers: { 'content-type': 'application/json' } });
        }
        const read = req.method === 'GET' || req.method === 'LIST';
        if (!read) {
          const r = await forward(req, url.pathname + url.search, body);
          lastWrite = Date.now();
          return send(r);
        }
        if (path.startsWith('/v1/sys/remount/status/')) {
          return send({ status: 404, body: JSON.stringify({ errors: [] }), headers: { 'content-type': 'application/json' } });
        }
        const key = `${req.method} ${url.pathname}${url.search}`;
        const lagging = Date.now() - lastWrite < lagMs;
        if (lagging && index !== undefined)
          return send({ status: 412, body: JSON.stringify({ errors: ['required index state not present'] }), headers: { 'content-type': 'application/json' } });
        if (lagging && copy.has(key)) return send(copy.get(key)!);
        const r = await forward(req, url.pathname + url.search, body);
        copy.set(key, r);
        return send(r);
      })().catch((e: Error) => res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [`perf standby: ${e.message}`] })));
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
