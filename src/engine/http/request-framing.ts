// A byte-level tracker of HTTP/1.x request framing on one connection: it finds where each request
// head starts (after the previous message's Content-Length or chunked body) so the method token can
// be rewritten there and nowhere else. It decides nothing about validity: on anything it does not
// understand it stops tracking and passes bytes through, and Node's own parser refuses the request.

import { METHODS } from 'node:http';

const CR = 13;
const LF = 10;
const SP = 32;
const CRLF_CR = Buffer.from('\r');
/** Longer than any method token; a longer first word is not a request Node would accept. */
const MAX_METHOD = 24;
/** Longer than Node's max header size, so Node answers 431 before this gives up. */
const MAX_LINE = 64 * 1024;

type State = 'start' | 'head' | 'body' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'passthrough';

/**
 * Method tokens Node's parser knows; any other well-formed token (LIST, lowercase "list", FROB) is
 * rewritten to PLACEHOLDER and restored per request, so the core answers it as Vault does (LIST
 * served, anything else 405) on a connection that stays usable, as in Go's server. CONNECT is
 * rewritten too: Node would hand its socket to a tunnel handler, and this server has none (Node
 * then drops the connection unanswered). PRI stays: it is the HTTP/2 preface, which Node refuses.
 */
const KNOWN = new Set([...METHODS.filter((m) => m !== 'CONNECT'), 'PRI']);
const PLACEHOLDER = 'LINK';
/** RFC 9110 token characters. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export class RequestFraming {
  /** The original method of each request head seen, oldest first; the adapter shifts one per request. */
  readonly methods: string[] = [];
  private state: State = 'start';
  private pending: Buffer[] = [];
  private pendingLength = 0;
  private firstLine = true;
  private contentLength = 0;
  private chunked = false;
  private remaining = 0;

  /** Feeds received bytes; returns the bytes to hand to the HTTP parser (the same buffer when unchanged). */
  feed(chunk: Buffer): Buffer {
    if (this.state === 'passthrough') return chunk;
    let out: Buffer[] | undefined;
    let from = 0; // start of the not yet emitted part of chunk
    let i = 0;
    while (i < chunk.length) {
      switch (this.state) {
        case 'start': {
          const carried = this.pendingLength > 0; // a token begun in an earlier chunk, withheld so far
          if (!carried) {
            while (i < chunk.length && (chunk[i] === CR || chunk[i] === LF)) i++;
            if (i === chunk.length) break;
          }
          let end = i;
          while (end < chunk.length && end - i <= MAX_METHOD && chunk[end] !== SP && chunk[end] !== CR && chunk[end] !== LF) end++;
          // A line break or an overlong word before the space: not a request line this front understands.
          if (end < chunk.length && chunk[end] !== SP) return this.giveUp(out, chunk, from);
          if (end - i > MAX_METHOD) return this.giveUp(out, chunk, from);
          const sp = end === chunk.length ? -1 : end;
          if (sp === -1) {
            // Withhold the partial token until its end is seen.
            if (i > from) (out ??= []).push(chunk.subarray(from, i));
            this.pending.push(chunk.subarray(i, end));
            this.pendingLength += end - i;
            from = end;
            i = end;
            if (this.pendingLength > MAX_METHOD) return this.giveUp(out, chunk, from);
            break;
          }
          const token = carried
            ? Buffer.concat([...this.pending, chunk.subarray(i, end)]).toString('latin1')
            : chunk.toString('latin1', i, end);
          this.pending = [];
          this.pendingLength = 0;
          this.methods.push(token);
          const rewritten = !KNOWN.has(token) && TOKEN.test(token) ? PLACEHOLDER : undefined;
          if (rewritten !== undefined || carried) {
            if (i > from) (out ??= []).push(chunk.subarray(from, i));
            (out ??= []).push(Buffer.from(rewritten ?? token, 'latin1'));
            from = end;
          }
          i = end;
          this.beginHead();
          break;
        }
        case 'head':
        case 'chunk-size':
        case 'chunk-end':
        case 'trailers': {
          const nl = chunk.indexOf(LF, i);
          const end = nl === -1 ? chunk.length : nl;
          this.pending.push(chunk.subarray(i, end));
          this.pendingLength += end - i;
          i = nl === -1 ? chunk.length : nl + 1;
          if (nl === -1) {
            if (this.pendingLength > MAX_LINE) return this.giveUp(out, chunk, from);
            break;
          }
          const line = this.pendingLength === 0 ? Buffer.alloc(0) : this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingLength);
          this.pending = [];
          this.pendingLength = 0;
          const len = line.length > 0 && line[line.length - 1] === CR ? line.length - 1 : line.length;
          if (!this.onLine(line, len)) return this.giveUp(out, chunk, from);
          if (len === line.length) {
            // A bare LF ends the line (RFC 9112 2.2 allows it; Go's server, so Vault, accepts it);
            // Node's parser wants CRLF, so the CR is added here.
            (out ??= []).push(chunk.subarray(from, nl), CRLF_CR);
            from = nl;
          }
          break;
        }
        case 'body':
        case 'chunk-data': {
          const take = Math.min(this.remaining, chunk.length - i);
          i += take;
          this.remaining -= take;
          if (this.remaining === 0) this.state = this.state === 'body' ? 'start' : 'chunk-end';
          break;
        }
        default:
          return this.giveUp(out, chunk, from);
      }
    }
    if (out === undefined) return from === 0 ? chunk : chunk.subarray(from);
    if (from < chunk.length) out.push(chunk.subarray(from));
    return out.length === 1 ? out[0] : Buffer.concat(out);
  }

  private beginHead(): void {
    this.state = 'head';
    this.firstLine = true;
    this.contentLength = 0;
    this.chunked = false;
  }

  /** Handles one complete line (len excludes the CR); false means "stop tracking". */
  private onLine(line: Buffer, len: number): boolean {
    switch (this.state) {
      case 'head':
        if (this.firstLine) {
          this.firstLine = false;
          return true;
        }
        if (len === 0) return this.endHead();
        return this.onHeader(line.toString('latin1', 0, len));
      case 'chunk-size': {
        const text = line.toString('latin1', 0, len);
        const semi = text.indexOf(';');
        const hex = (semi === -1 ? text : text.slice(0, semi)).trim();
        if (!/^[0-9a-fA-F]{1,12}$/.test(hex)) return false;
        const size = parseInt(hex, 16);
        if (size === 0) this.state = 'trailers';
        else {
          this.remaining = size;
          this.state = 'chunk-data';
        }
        return true;
      }
      case 'chunk-end':
        if (len !== 0) return false;
        this.state = 'chunk-size';
        return true;
      case 'trailers':
        if (len === 0) this.state = 'start';
        return true;
      default:
        return false;
    }
  }

  private onHeader(text: string): boolean {
    const colon = text.indexOf(':');
    if (colon <= 0) return false;
    const c = text.charCodeAt(0) | 0x20;
    // Only two headers decide framing; skip the rest without lower-casing them.
    if (c !== 0x63 /* c */ && c !== 0x74 /* t */) return true;
    const name = text.slice(0, colon).trim().toLowerCase();
    const value = text.slice(colon + 1).trim();
    if (name === 'content-length') {
      if (!/^\d{1,15}$/.test(value)) return false;
      this.contentLength = Number(value);
    } else if (name === 'transfer-encoding') {
      if (!/(?:^|,)\s*chunked$/i.test(value)) return false;
      this.chunked = true;
    }
    return true;
  }

  private endHead(): boolean {
    // An Upgrade request is served as a plain one (the server takes no upgrades, and CONNECT is
    // rewritten), so the connection always goes on with HTTP requests.
    if (this.chunked) this.state = 'chunk-size';
    else if (this.contentLength > 0) {
      this.remaining = this.contentLength;
      this.state = 'body';
    } else this.state = 'start';
    return true;
  }

  private giveUp(out: Buffer[] | undefined, chunk: Buffer, from: number): Buffer {
    // Only a method token is withheld; header lines were already passed on as they came.
    const withheld = this.state === 'start' ? this.pending : [];
    this.state = 'passthrough';
    const parts = [...(out ?? []), ...withheld, chunk.subarray(from)];
    this.pending = [];
    this.pendingLength = 0;
    return Buffer.concat(parts);
  }
}
