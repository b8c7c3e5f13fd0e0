// A connection moved onto the framing front: a Duplex around the client's socket that hands Node's
// HTTP server the socket's bytes through a RequestFraming (unknown methods such as LIST rewritten
// to one Node's parser accepts, the originals kept per request in `framing.methods`) and writes
// answers straight to the socket. Node's server takes any Duplex as a connection (documented for
// the server's 'connection' event), so its parser still frames, pipelines and keeps the connection
// alive. Only connections that sent a method Node refuses pay for this layer.

import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { RequestFraming } from './request-framing';

export class FramedConnection extends Duplex {
  readonly framing = new RequestFraming();
  private waitingDrain?: () => void;

  /** `first`: the bytes of the connection from the start of the request Node refused. */
  constructor(
    readonly socket: Socket,
    first: Buffer,
  ) {
    // Half-open: the client's end of sending must not cut an answer still being written.
    super({ allowHalfOpen: true });
    this.forward(first);
    socket.on('data', (chunk: Buffer) => {
      if (!this.forward(chunk)) socket.pause();
    });
    socket.on('end', () => this.push(null));
    socket.on('error', (e) => this.destroy(e));
    // Until Node's server takes this connection (after the answers already due on the socket), a
    // client's reset must not become an unhandled 'error'; the server adds its own listener then.
    this.on('error', () => undefined);
    socket.on('close', () => this.destroy());
    socket.on('drain', () => {
      const w = this.waitingDrain;
      this.waitingDrain = undefined;
      w?.();
    });
    // Node's keep-alive and idle timeouts, set through setTimeout below, come back as 'timeout'.
    socket.on('timeout', () => this.emit('timeout'));
  }

  private forward(chunk: Buffer): boolean {
    const out = this.framing.feed(chunk);
    return out.length === 0 || this.push(out);
  }

  override _read(): void {
    this.socket.resume();
  }

  override _write(chunk: Buffer, encoding: BufferEncoding, done: (e?: Error | null) => void): void {
    if (this.socket.write(chunk, encoding)) done();
    else this.waitingDrain = done;
  }

  override _final(done: (e?: Error | null) => void): void {
    this.socket.end(done);
  }

  override _destroy(e: Error | null, done: (e?: Error | null) => void): void {
    this.socket.destroy(e ?? undefined);
    done(e);
  }

  // What Node's server and the adapter use of a net.Socket.
  setTimeout(ms: number, callback?: () => void): this {
    this.socket.setTimeout(ms, callback);
    return this;
  }
  setNoDelay(noDelay?: boolean): this {
    this.socket.setNoDelay(noDelay);
    return this;
  }
  setKeepAlive(enable?: boolean, delay?: number): this {
    this.socket.setKeepAlive(enable, delay);
    return this;
  }
  get remoteAddress(): string | undefined {
    return this.socket.remoteAddress;
  }
  get remotePort(): number | undefined {
    return this.socket.remotePort;
  }
  get remoteFamily(): string | undefined {
    return this.socket.remoteFamily;
  }
  get localAddress(): string | undefined {
    return this.socket.localAddress;
  }
  get localPort(): number | undefined {
    return this.socket.localPort;
  }
  address(): ReturnType<Socket['address']> {
    return this.socket.address();
  }
}
