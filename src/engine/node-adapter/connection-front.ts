// Vault clients send LIST, a method Node's HTTP parser (llhttp) refuses. Connections start on
// Node's native path: the parser consumes the socket itself, with no JavaScript between the socket
// and the parser. A connection moves onto the framing front (framed-connection.ts) only when it
// sends a method Node refuses: Node reports it as a 'clientError' with the bytes of the read it was
// parsing (refused-method.ts finds where the refused request starts), or hands over a CONNECT in
// its documented 'connect' event. From then on the connection's bytes go through a RequestFraming
// and Node's server parses them again as a new connection (any Duplex may be one), after the
// answers to the requests Node already read from the socket have been written.
//
// What this relies on beyond Node's documentation, checked by test/integration/engine/
// node-http-takeover.test.ts on every supported Node: err.bytesParsed is the offset in
// err.rawPacket where the parser stopped, and a socket whose read listeners ('data', 'end',
// 'timeout', 'pause', 'resume') are removed and which is given a new 'data' listener stops being
// consumed by the old parser and delivers every later byte to that listener (Node's own upgrade
// path does the same).

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { Server as TlsServer } from 'node:tls';
import type { Duplex } from 'node:stream';
import { FramedConnection } from './framed-connection';
import { refusedRequest } from './refused-method';

/** The original method token of each request seen on a framed connection and not yet taken, oldest first. */
export function methodsOf(socket: object): string[] | undefined {
  return socket instanceof FramedConnection ? socket.framing.methods : undefined;
}

const MOVED = Symbol('moved to the framing front');
/** Node's listeners that read the socket for the parser it leaves. */
const NODE_READ_EVENTS = ['data', 'end', 'timeout', 'pause', 'resume'] as const;

/** Whether `socket` was moved onto the framing front (Node may still report its old parser's errors). */
export function movedToFront(socket: object): boolean {
  return (socket as { [MOVED]?: true })[MOVED] === true;
}

/** The latest answer on each native connection: a moved connection's answers come after it. */
const latest = new WeakMap<object, ServerResponse>();

/** Records the latest answer on `req`'s connection (the adapter calls it per request). */
export function noteAnswer(req: IncomingMessage, res: ServerResponse): void {
  if (!(req.socket instanceof FramedConnection)) latest.set(req.socket, res);
}

function answered(socket: object): Promise<void> {
  const res = latest.get(socket);
  if (!res || res.writableFinished || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    res.once('finish', resolve);
    res.once('close', resolve);
  });
}

function move(server: Server, socket: Socket, first: Buffer): void {
  (socket as Socket & { [MOVED]?: true })[MOVED] = true;
  for (const e of NODE_READ_EVENTS) socket.removeAllListeners(e);
  const conn = new FramedConnection(socket, first);
  // On a TLS server 'connection' would start a TLS handshake over the already decrypted bytes;
  // 'secureConnection' is where https hands connections to the HTTP parser.
  const event = server instanceof TlsServer ? 'secureConnection' : 'connection';
  void answered(socket).then(() => {
    if (!conn.destroyed) server.emit(event, conn);
  });
}

/**
 * The server's clientError hook for refused methods: moves the connection onto the framing front
 * from the refused request on, and returns true; false for every other error (answered as before).
 */
export function frontForRefusedMethod(server: Server, err: NodeJS.ErrnoException & { rawPacket?: unknown; bytesParsed?: number }, socket: Duplex): boolean {
  if (err.code !== 'HPE_INVALID_METHOD' || !(socket instanceof Socket) || movedToFront(socket) || !Buffer.isBuffer(err.rawPacket)) return false;
  move(server, socket, refusedRequest(err.rawPacket, err.bytesParsed ?? 0));
  return true;
}

/**
 * After a request asking for an Upgrade (h2c), which this server serves as a plain request, Node's
 * parser silently drops any later request it cannot parse (a LIST would go unanswered): such a
 * connection moves onto the framing front once this request is read. Called from the request
 * event; the move waits for the parser's current read to end.
 */
export function frontAfterUpgrade(server: Server, req: IncomingMessage): void {
  const socket = req.socket;
  if (req.headers.upgrade === undefined || !(socket instanceof Socket) || movedToFront(socket)) return;
  (socket as Socket & { [MOVED]?: true })[MOVED] = true;
  process.nextTick(() => move(server, socket, Buffer.alloc(0)));
}

/**
 * The server's 'connect' hook: keyward has no tunnels, so a CONNECT is framed like any unknown
 * method (answered 405 by the core) on a connection that stays usable. Node has already detached
 * the socket from its parser; the head is written out again from what Node parsed.
 */
export function frontForConnect(server: Server, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  if (!(socket instanceof Socket)) return void socket.destroy();
  const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
  move(server, socket, Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1'), head]));
}
