// Vault clients send LIST, a method Node's HTTP parser (llhttp) does not know. Every received chunk
// passes through a RequestFraming, which tracks request framing and rewrites the method token at
// the start of every request head to one llhttp accepts; the adapter restores the original per
// request from `methodsOf(socket)`, in order. Chosen over serving LIST from the parser's
// clientError hook (which lost split heads and pipelined requests) and over a second HTTP parser (a
// whole server to keep correct): Node still parses, frames, pipelines and keeps connections alive.
//
// The front sits in the socket's own 'data' path rather than in a Duplex around the socket: a
// Duplex put a second stream layer under every read and write (about a fifth of the engine's time
// per request in profiles), while here the socket stays Node's own and writes go straight to it.
// Node's server reads a socket through one 'data' listener whenever its parser does not consume the
// handle natively, and adding a 'data' listener is the documented way to stop that consumption; the
// front takes that one listener's place and hands it the rewritten bytes.

import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { RequestFraming } from './request-framing';

const framings = new WeakMap<object, RequestFraming>();

/** The original method token of each request seen on `socket` and not yet taken, oldest first. */
export function methodsOf(socket: object): string[] | undefined {
  return framings.get(socket)?.methods;
}

/** Puts a RequestFraming in front of Node's HTTP parser on every connection `server` accepts. */
export function installConnectionFront(server: Server): void {
  const [nodeConnectionListener] = server.listeners('connection') as ((s: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    nodeConnectionListener.call(server, socket);
    const listeners = socket.rawListeners('data') as ((chunk: Buffer) => void)[];
    if (listeners.length !== 1) {
      // Another Node release reading sockets differently: refuse to serve unframed rather than
      // let a LIST reach the parser unrewritten or bytes reach it twice.
      socket.destroy();
      throw new Error(`keyward's HTTP front expects Node's server to read a socket through one 'data' listener, found ${listeners.length} (Node ${process.version})`);
    }
    const nodeOnData = listeners[0];
    socket.removeListener('data', nodeOnData);
    const framing = new RequestFraming();
    framings.set(socket, framing);
    socket.on('data', (chunk: Buffer) => nodeOnData.call(socket, framing.feed(chunk)));
  });
}
