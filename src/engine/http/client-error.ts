// Refusals from Node's HTTP parser (a request it cannot parse, too large a head, a head or body
// that arrives too slowly) answered with their real status and the {"errors": [...]} envelope,
// then the connection is closed: after a framing error nothing later on it can be trusted.

import type { Duplex } from 'node:stream';

const REFUSALS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'request header fields too large'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Payload Too Large', 'chunk extensions too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request timed out: the request head or body arrived too slowly'],
  HPE_HEADERS_TIMEOUT: [408, 'Request Timeout', 'request timed out: the request head arrived too slowly'],
  HPE_INVALID_METHOD: [405, 'Method Not Allowed', 'unsupported operation: unknown HTTP method'],
  HPE_INVALID_VERSION: [505, 'HTTP Version Not Supported', 'unsupported HTTP version: use HTTP/1.0 or HTTP/1.1'],
};

/** The status line and body for a parser error code (400 for anything not listed). */
export function refusalFor(code: string | undefined): { status: number; reason: string; message: string } {
  const r = (code !== undefined && REFUSALS[code]) || [400, 'Bad Request', 'malformed HTTP request'];
  return { status: r[0], reason: r[1], message: r[2] };
}

type Outgoing = {
  writableFinished: boolean;
  headersSent: boolean;
  req?: { complete: boolean };
  once(event: 'finish' | 'close', f: () => void): unknown;
};
const REFUSING = Symbol('refusing');

/** A request line at the start of a line: method, target, version. */
const REQUEST_LINE = /(?:^|\n)([!#$%&'*+\-.^_`|~0-9A-Za-z]+) [^\s]+ HTTP\/\d/g;

/**
 * Whether the refused request is a HEAD, from the bytes Node was parsing (err.rawPacket, up to
 * err.bytesParsed): the last request line that starts before the point of refusal. A head that
 * began in an earlier read is not seen, and gets the body.
 */
export function refusedHead(raw: unknown, at: number | undefined): boolean {
  if (!Buffer.isBuffer(raw)) return false;
  const text = raw.toString('latin1', 0, Math.min(at ?? raw.length, raw.length, 64 * 1024));
  let method: string | undefined;
  for (const m of text.matchAll(REQUEST_LINE)) method = m[1];
  return method === 'HEAD';
}

export function answerClientError(err: NodeJS.ErrnoException & { rawPacket?: unknown; bytesParsed?: number }, socket: Duplex & { _httpMessage?: Outgoing | null; [REFUSING]?: true }): void {
  // A reset: there is no one to answer.
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  // Node reports the same parser error again for every later read; one refusal is enough.
  if (socket[REFUSING]) return;
  socket[REFUSING] = true;
  const { status, reason, message } = refusalFor(err.code);
  const body = JSON.stringify({ errors: [message] }) + '\n';
  // An answer to HEAD has no body (its length is the one a GET would get): a client reads any byte
  // after the head as a protocol error.
  const refusal =
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncache-control: no-store\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${refusedHead(err.rawPacket, err.bytesParsed) ? '' : body}`;
  const refuse = () => {
    const inFlight = socket._httpMessage;
    if (inFlight && !inFlight.writableFinished) {
      // The error is inside this request's own body (e.g. Transfer-Encoding: identity): the rest
      // of it will never come, so it cannot be answered; refuse it now, as Node itself would.
      if (inFlight.req && !inFlight.req.complete) {
        if (!inFlight.headersSent) socket.write(refusal);
        socket.destroy();
        return;
      }
      // Earlier pipelined requests are answered first (as Go's server does), then the refusal.
      inFlight.once('finish', refuse);
      // A response that ends without finishing (its writer failed) leaves nothing to add.
      inFlight.once('close', () => void (inFlight.writableFinished || socket.destroy()));
      return;
    }
    if (!socket.writable) return void socket.destroy();
    socket.end(refusal);
  };
  refuse();
}
