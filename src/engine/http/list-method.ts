// Node's HTTP parser (llhttp) rejects Vault's LIST method before any handler runs. This serves such
// requests from the parser's clientError hook: the request head is parsed here, handed to the core
// like any other request, and answered on the raw socket with Connection: close.

import type { Socket } from 'node:net';
import type { Core } from '../core';
import type { EngineResponse } from './request';

const MAX_HEAD = 64 * 1024;

interface ParsedHead {
  method: string;
  url: string;
  headers: Record<string, string | undefined>;
  rest: Buffer;
}

function parseHead(buf: Buffer): ParsedHead | undefined {
  const end = buf.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(lines[0]);
  if (!m) return undefined;
  const headers: Record<string, string | undefined> = {};
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return { method: m[1], url: m[2], headers, rest: buf.subarray(end + 4) };
}

function writeRaw(socket: Socket, r: EngineResponse): void {
  const body = Buffer.isBuffer(r.body) ? r.body : Buffer.alloc(0);
  const reason: Record<number, string> = { 200: 'OK', 204: 'No Content', 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 413: 'Payload Too Large', 500: 'Internal Server Error' };
  const head = [`HTTP/1.1 ${r.status} ${reason[r.status] ?? 'Status'}`, ...Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`), `content-length: ${body.length}`, 'connection: close', '', ''];
  socket.end(Buffer.concat([Buffer.from(head.join('\r\n'), 'latin1'), body]));
}

/** Installs the LIST fallback; other parse errors get a plain 400 and a closed connection. */
export function serveListMethod(server: import('node:http').Server, core: Core): void {
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) => {
    const raw = err.rawPacket;
    if (err.code !== 'HPE_INVALID_METHOD' || !raw || !raw.subarray(0, 5).equals(Buffer.from('LIST '))) {
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    let buf = raw;
    const tryServe = () => {
      const head = parseHead(buf);
      if (!head) {
        if (buf.length > MAX_HEAD) socket.destroy();
        return false;
      }
      socket.removeAllListeners('data');
      core
        .handle({ method: head.method, url: head.url, headers: head.headers, body: Buffer.alloc(0), remoteAddress: socket.remoteAddress ?? '' })
        .then((r) => writeRaw(socket, r), () => socket.destroy());
      return true;
    };
    if (!tryServe()) {
      socket.on('data', (chunk: Buffer) => {
        buf = Buffer.concat([buf, chunk]);
        tryServe();
      });
      socket.resume();
    }
  });
}
