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
const COLON = 0x3a;
const CONTENT_LENGTH = Buffer.from('content-length', 'latin1');
const TRANSFER_ENCODING = Buffer.from('transfer-encoding', 'latin1');

/** Whether line[start, colon) is `name` in any letter case, followed only by spaces or tabs. */
function nameIs(line: Buffer, start: number, colon: number, name: Buffer): boolean {
  if (colon - start < name.length) return false;
  for (let k = 0; k < name.length; k++) {
    const c = line[start + k];
    const n = name[k]; // lowercase: a letter may come in either case, '-' only as itself
    if (c !== n && (n < 0x61 || n > 0x7a || (c | 0x20) !== n)) return false;
  }
  for (let k = start + name.length; k < colon; k++) if (line[k] !== SP && line[k] !== 0x09) return false;
  return true;
}

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
          const token = carried ? Buffer.concat([...this.pending, chunk.subarray(i, end)]).toString('latin1') : chunk.toString('latin1', i, end);
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
          if (nl === -1) {
            this.pending.push(chunk.subarray(i));
            this.pendingLength += chunk.length - i;
            i = chunk.length;
            if (this.pendingLength > MAX_LINE) return this.giveUp(out, chunk, from);
            break;
          }
          // A line wholly inside this chunk is looked at in place, without a copy.
          let line = chunk;
          let start = i;
          if (this.pendingLength > 0) {
            this.pending.push(chunk.subarray(i, nl));
            line = Buffer.concat(this.pending, this.pendingLength + nl - i);
            start = 0;
            this.pending = [];
            this.pendingLength = 0;
          }
          const lineEnd = line === chunk ? nl : line.length;
          i = nl + 1;
          const bareLf = lineEnd === start || line[lineEnd - 1] !== CR;
          if (!this.onLine(line, start, bareLf ? lineEnd : lineEnd - 1)) return this.giveUp(out, chunk, from);
          if (bareLf) {
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

  /** Handles one complete line, line[start, end) without its CR; false means "stop tracking". */
  private onLine(line: Buffer, start: number, end: number): boolean {
    switch (this.state) {
      case 'head':
        if (this.firstLine) {
          this.firstLine = false;
          return true;
        }
        if (end === start) return this.endHead();
        return this.onHeader(line, start, end);
      case 'chunk-size': {
        const text = line.toString('latin1', start, end);
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
        if (end !== start) return false;
        this.state = 'chunk-size';
        return true;
      case 'trailers':
        if (end === start) this.state = 'start';
        return true;
      default:
        return false;
    }
  }

  private onHeader(line: Buffer, start: number, end: number): boolean {
    const colon = line.indexOf(COLON, start);
    if (colon <= start || colon >= end) return false;
    // Only two headers decide framing; the others are skipped on their bytes, without a string.
    const framing = nameIs(line, start, colon, CONTENT_LENGTH) ? 'content-length' : nameIs(line, start, colon, TRANSFER_ENCODING) ? 'transfer-encoding' : undefined;
    if (framing === undefined) return true;
    const value = line.toString('latin1', colon + 1, end).trim();
    if (framing === 'content-length') {
      if (!/^\d{1,15}$/.test(value)) return false;
      this.contentLength = Number(value);
    } else {
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
