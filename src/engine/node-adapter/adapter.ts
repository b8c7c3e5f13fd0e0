// The thin node:http adapter: socket in (Node's parser natively; the framing front once a
// connection sends LIST or another method Node refuses), EngineRequest to
// the core, EngineResponse back out, with the connection left reusable after any answer.

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { FileBody } from '../core/file-body';
import type { EngineRequest, EngineResponse } from '../core/request';
import type { Logger } from '../log';
import { frontAfterUpgrade, frontForConnect, frontForRefusedMethod, methodsOf, movedToFront, noteAnswer } from './connection-front';
import { answerClientError, refusalFor, watchSplitHeads } from './client-error';
import { DEFAULT_MAX_CONNECTIONS, DEFAULT_READ_HEADER_TIMEOUT_MS, DEFAULT_READ_TIMEOUT_MS, createListenerServer, type ListenerOptions } from './listener';
import { sendFile } from './send-file';

/**
 * A body answered before it was read is drained up to this many bytes so the connection stays
 * usable; beyond a declared length this large the answer says Connection: close instead.
 */
export const DRAIN_LIMIT_BYTES = 8 * 1024 * 1024;

function headersOf(req: IncomingMessage): Record<string, string | undefined> {
  // Node's server builds req.headers for every request anyway (it reads Expect and TE). Where no
  // name repeats, its values are the raw ones: use it as it is.
  const built = req.headers;
  let names = 0;
  for (const _ in built) names++;
  if (names * 2 === req.rawHeaders.length && built['set-cookie'] === undefined) return built as Record<string, string | undefined>;
  // A repeated name: Go's Header.Get, which Vault reads every header with, takes the first value
  // (Node joins X-Vault-Token or X-Vault-Namespace repeats with ", ").
  const out: Record<string, string | undefined> = {};
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const k = raw[i].toLowerCase();
    if (!Object.hasOwn(out, k)) out[k] = raw[i + 1];
    else if (k === 'host') repeatedHost.add(req);
  }
  return out;
}

/** Requests with more than one Host header (Node keeps the first; Go's server, Vault's, refuses them). */
const repeatedHost = new WeakSet<IncomingMessage>();

/**
 * Called when an answer is ready but the request body is not fully read (refused early, or a
 * handler stopped reading). Drains the rest, bounded; returns false when the connection must close.
 */
function settleUnreadBody(req: IncomingMessage, headers: Record<string, string | undefined>): boolean {
  const declared = headers['content-length'];
  // No declared body (complete may still be false here: Node sets it after the request event).
  if (req.complete || ((declared === undefined || declared === '0') && headers['transfer-encoding'] === undefined)) return true;
  if (req.destroyed) return false;
  // A chunked body (no declared length) is drained too, as Go's server does: the answer keeps the
  // connection, and a body that runs past the limit is cut off by closing it.
  const keep = declared === undefined ? headers['transfer-encoding'] !== undefined : /^\d+$/.test(declared) && Number(declared) <= DRAIN_LIMIT_BYTES;
  let seen = 0;
  req.on('data', (c: Buffer) => {
    seen += c.length;
    if (seen > DRAIN_LIMIT_BYTES) req.socket.destroy();
  });
  req.on('error', () => undefined); // a client that hangs up while we drain is no error of ours
  req.resume();
  return keep;
}

/**
 * A refusal of a request the core never sees, in the {"errors": [...]} envelope, closing the
 * connection as Go's server does for these (Node leaves the body out of an answer to HEAD).
 */
function refuse(res: ServerResponse, status: number, message: string): void {
  const body = JSON.stringify({ errors: [message] }) + '\n';
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': String(Buffer.byteLength(body)), connection: 'close' });
  res.end(body);
}

/** Per connection, the handling of its latest request (see createHttpServer). */
const inOrder = new WeakMap<object, Promise<unknown>>();

/** `tls`: serve HTTPS with this certificate and key (see listener.ts for the settings). */
/** The request core the adapter serves (the engine's, or the snapshot agent's). */
export interface RequestHandler {
  handle(req: EngineRequest): Promise<EngineResponse>;
}

export function createHttpServer(core: RequestHandler, log: Logger, settings: ListenerOptions = {}, tls?: { cert: Buffer; key: Buffer }): Server {
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const front = req.socket;
    const method = methodsOf(front)?.shift() ?? req.method ?? 'GET';
    noteAnswer(req, res);
    const headers = headersOf(req);
    if (headers.upgrade !== undefined) frontAfterUpgrade(server, req);
    // HTTP/2.0 and other versions Node's parser lets through in an HTTP/1 head.
    if (req.httpVersionMajor !== 1) return refuse(res, 505, refusalFor('HPE_INVALID_VERSION').message);
    // Node's own check (requireHostHeader, off below) answers a bare 400; Go's, Vault's, is this.
    if (req.httpVersionMinor === 1 && headers.host === undefined) return refuse(res, 400, 'missing required Host header');
    if (repeatedHost.has(req)) return refuse(res, 400, 'too many Host headers');
    // A request without body framing has no body: the core is not handed the stream to read (three
    // listeners and a wait for its 'end' per GET); Node discards it when the answer is done.
    const body = headers['transfer-encoding'] === undefined && (headers['content-length'] === undefined || headers['content-length'] === '0') ? undefined : req;
    const run = () => core.handle({ method, url: req.url ?? '/', headers, body, remoteAddress: req.socket.remoteAddress ?? '' });
    // Pipelined requests on one connection run one after another, as in Go's server: a pipelined
    // write then read must see the write (RFC 9112 9.3.2 allows parallel work for safe methods only).
    const previous = inOrder.get(front);
    const handled = previous ? previous.then(run) : run();
    inOrder.set(
      front,
      handled.catch(() => undefined),
    );
    handled
      .then((r) => {
        // The answer's headers are its own: set in place (a spread followed by a property costs V8
        // a fresh hidden class per request).
        if (!settleUnreadBody(req, headers)) r.headers.connection = 'close';
        // 204 and 304 (sys/health?activecode=204) carry no body and no length: a length there would
        // make the client read the next response as this one's body.
        if (r.status === 204 || r.status === 304) r.body = undefined;
        if (r.body === undefined) {
          res.writeHead(r.status, r.headers);
          return void res.end();
        }
        if (typeof r.body === 'string' || Buffer.isBuffer(r.body)) {
          // An explicit length: HTTP/1.0 clients otherwise get a close-delimited body.
          r.headers['content-length'] = String(typeof r.body === 'string' ? Buffer.byteLength(r.body) : r.body.length);
          res.writeHead(r.status, r.headers);
          return void res.end(r.body);
        }
        if (r.body instanceof FileBody) {
          const file = r.body;
          r.headers['content-length'] = String(file.size);
          try {
            res.writeHead(r.status, r.headers);
          } catch (e) {
            file.end(); // never sent: its maker removes it now
            throw e;
          }
          // sendFile answers its own failures (the head is out: a 500 can no longer be sent).
          return void sendFile(res, file, log);
        }
        res.writeHead(r.status, r.headers);
        r.body.on('error', (e) => {
          log.error('response stream failed', { error: String(e) });
          res.destroy(e);
        });
        r.body.pipe(res);
      })
      .catch((e) => {
        log.error('adapter failure', { error: String(e) });
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json', connection: 'close' });
        res.end('{"errors":["internal error"]}\n');
      });
  };
  // Timeouts are enforced by a sweep every connectionsCheckingInterval (Node's default 30 s would
  // let a 10 s head timeout run to 30).
  // requireHostHeader off: Node's own check answers a bare 400; Go's answer is made above.
  const sweep = { connectionsCheckingInterval: 1000, requireHostHeader: false };
  const server = createListenerServer(sweep, onRequest, tls);
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    // A moved connection's old parser may still report (a timeout): the front answers from now on.
    if (movedToFront(socket)) return;
    if (frontForRefusedMethod(server, err, socket)) return;
    answerClientError(err, socket);
  });
  // An Expect other than 100-continue (Node's own answer is a bare 417 on a kept connection).
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => refuse(res, 417, 'expectation failed: only "Expect: 100-continue" is supported'));
  // After Node's own connection listener has attached its parser (registered first, so it runs first).
  server.on('connection', watchSplitHeads);
  server.on('connect', (req: IncomingMessage, socket, head: Buffer) => frontForConnect(server, req, socket, head));
  // Vault's server: the head within 10 s, the whole request within 30 s; idle keep-alive as before.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = settings.readHeaderTimeoutMs ?? DEFAULT_READ_HEADER_TIMEOUT_MS;
  server.requestTimeout = Math.max(server.headersTimeout, settings.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS);
  server.maxConnections = settings.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  return server;
}
