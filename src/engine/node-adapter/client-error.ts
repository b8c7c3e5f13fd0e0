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

/**
 * A request line at the start of a line: method, target, version; or its beginning, cut off by
 * the end of the bytes seen (a request line larger than Node's head limit, or one whose version
 * has not arrived yet: a 70 KB path never shows its "HTTP/1.1" before the refusal).
 */
const REQUEST_LINE = /(?:^|\n)([!#$%&'*+\-.^_`|~0-9A-Za-z]+) (?:[^\s]+ HTTP\/\d|[^\s]*$)/g;

/** The method of the last request line in the first `at` bytes of `raw` (undefined: none there). */
export function lastRequestMethod(raw: unknown, at?: number): string | undefined {
  if (!Buffer.isBuffer(raw)) return undefined;
  const text = raw.toString('latin1', 0, Math.min(at ?? raw.length, raw.length, 64 * 1024));
  let method: string | undefined;
  for (const m of text.matchAll(REQUEST_LINE)) method = m[1];
  return method;
}

/**
 * Whether the refused request is a HEAD: the last request line that starts before the point of
 * refusal in the bytes Node was parsing (err.rawPacket, up to err.bytesParsed), else, for a head
 * that began in an earlier read, the method watchSplitHeads noted when that read ended.
 */
export function refusedHead(raw: unknown, at: number | undefined, splitHeadMethod?: string): boolean {
  return (lastRequestMethod(raw, at) ?? splitHeadMethod) === 'HEAD';
}

const SPLIT_HEAD = Symbol('splitHeadMethod');
type WatchedSocket = Duplex & { [SPLIT_HEAD]?: string };
type NativeParser = {
  constructor: { kOnExecute?: number; kOnMessageBegin?: number };
  incoming: unknown;
  getCurrentBuffer?: () => Buffer;
  [k: number]: unknown;
};

/**
 * Notes, for a connection Node parses natively, the method of a request head still incomplete when
 * a read ends, so that refusing that head in a later read (a 431 for a head over 16 KiB written in
 * pieces) knows it answers a HEAD. Node's parser calls back at each message's start and once per
 * read after parsing it; a head is incomplete at the end of a read when no new request object
 * (`parser.incoming`) was made since the last message start. Only then is the read's buffer
 * copied and searched, so whole heads and bodies cost one property store per request. These are
 * Node internals (present in Node 20 to 24): where one is missing, nothing is hooked and a refusal
 * falls back to the bytes of the refused read.
 */
export function watchSplitHeads(socket: WatchedSocket & { parser?: NativeParser | null }): void {
  const parser = socket.parser;
  const { kOnExecute, kOnMessageBegin } = parser?.constructor ?? {};
  if (!parser || kOnExecute === undefined || kOnMessageBegin === undefined || typeof parser.getCurrentBuffer !== 'function') return;
  const onExecute = parser[kOnExecute];
  // Node's server sets no message-begin hook of its own; a parser is reused across connections,
  // so the one set here for an earlier connection is replaced, never chained.
  if (typeof onExecute !== 'function' || (parser[kOnMessageBegin] != null && !(parser[kOnMessageBegin] as { [SPLIT_HEAD]?: true })[SPLIT_HEAD])) return;
  const currentBuffer = parser.getCurrentBuffer.bind(parser);
  let incomingAtBegin: unknown = null;
  let begun = false;
  parser[kOnMessageBegin] = Object.assign(
    () => {
      begun = true;
      incomingAtBegin = parser.incoming;
    },
    { [SPLIT_HEAD]: true as const },
  );
  parser[kOnExecute] = function (this: unknown, ...args: unknown[]): unknown {
    if (begun && parser.incoming === incomingAtBegin) {
      const method = lastRequestMethod(currentBuffer());
      if (method !== undefined) socket[SPLIT_HEAD] = method;
    }
    return (onExecute as (...a: unknown[]) => unknown).apply(this, args);
  };
}

export function answerClientError(
  err: NodeJS.ErrnoException & { rawPacket?: unknown; bytesParsed?: number },
  socket: WatchedSocket & { _httpMessage?: Outgoing | null; [REFUSING]?: true },
): void {
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
    `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${refusedHead(err.rawPacket, err.bytesParsed, socket[SPLIT_HEAD]) ? '' : body}`;
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
