// Vault clients send LIST, a method Node's HTTP parser (llhttp) does not know. Each accepted socket
// is wrapped in this Duplex, which tracks request framing (RequestFraming) and rewrites the method
// token at the start of every request head to one llhttp accepts; the adapter restores the original
// per request from `methods`, in order. Chosen over serving LIST from the parser's clientError hook
// (which lost split heads and pipelined requests) and over a second HTTP parser (a whole server to
// keep correct): Node still parses, frames, pipelines and keeps connections alive, and the front
// only scans lines, which costs a few microseconds per request. Node documents that any Duplex may
// be handed to an http.Server as a connection.

import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { RequestFraming } from './request-framing';

export class ConnectionFront extends Duplex {
  private readonly framing = new RequestFraming();

  constructor(readonly socket: Socket) {
    super({ allowHalfOpen: true, decodeStrings: true });
    socket.on('data', (chunk: Buffer) => {
      const out = this.framing.feed(chunk);
      if (out.length > 0 && !this.push(out)) socket.pause();
    });
    socket.on('end', () => this.push(null));
    socket.on('timeout', () => this.emit('timeout'));
    socket.on('error', (e) => this.destroy(e));
    socket.on('close', () => this.destroy());
    socket.on('drain', () => this.emit('drain'));
  }

  /** The original method token of each request seen and not yet taken, oldest first. */
  get methods(): string[] {
    return this.framing.methods;
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
  get encrypted(): boolean {
    return false;
  }
  address() {
    return this.socket.address();
  }
  setTimeout(ms: number, cb?: () => void): this {
    this.socket.setTimeout(ms);
    if (cb) this.once('timeout', cb);
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
  ref(): this {
    this.socket.ref();
    return this;
  }
  unref(): this {
    this.socket.unref();
    return this;
  }

  override _read(): void {
    this.socket.resume();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.socket.write(chunk, cb);
  }

  override _writev(chunks: { chunk: Buffer }[], cb: (e?: Error | null) => void): void {
    this.socket.cork();
    for (let i = 0; i < chunks.length - 1; i++) this.socket.write(chunks[i].chunk);
    this.socket.write(chunks[chunks.length - 1].chunk, cb);
    this.socket.uncork();
  }

  override _final(cb: (e?: Error | null) => void): void {
    this.socket.end(cb);
  }

  override _destroy(e: Error | null, cb: (e?: Error | null) => void): void {
    this.socket.destroy(e ?? undefined);
    cb(e);
  }
}
