// JSON over HTTP for the provider client: undici with connect/header/body timeouts, provider error
// bodies turned into IdpError (status + the provider's message; never request credentials).

import { Agent, request, type Dispatcher } from 'undici';

export class IdpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'IdpError';
  }
}

export interface HttpOptions {
  dispatcher?: Dispatcher;
  /** Per-request limit in ms (connect, headers and body each). */
  timeoutMs?: number;
  /** Largest response body accepted; default MAX_BODY_BYTES. */
  maxBodyBytes?: number;
}

/** Provider answers are small JSON documents; a larger body is refused, not buffered. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads the body up to `limit` bytes and until `deadline` (ms since epoch). undici's bodyTimeout
 * only bounds the gap between chunks, so the deadline is checked per chunk: a provider trickling
 * its answer is cut off at most one idle timeout after the deadline, without a timer per request.
 */
async function boundedText(res: Dispatcher.ResponseData, limit: number, deadline: number, timeout: number, req: JsonRequest): Promise<string> {
  const body = res.body;
  const declared = Number(res.headers['content-length']);
  if (res.headers['content-length'] !== undefined && Number.isFinite(declared) && declared > limit) {
    body.destroy();
    throw new IdpError(0, `${req.method} ${redactUrl(req.url)}: answer is larger than ${limit} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > limit) {
        body.destroy();
        throw new IdpError(0, `${req.method} ${redactUrl(req.url)}: answer is larger than ${limit} bytes`);
      }
      if (Date.now() > deadline) {
        body.destroy();
        throw new IdpError(0, `${req.method} ${redactUrl(req.url)}: answer did not finish within ${timeout} ms`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (e) {
    if (e instanceof IdpError) throw e;
    throw new IdpError(0, `${req.method} ${redactUrl(req.url)}: reading the answer failed: ${(e as Error).message}`);
  }
  return chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
}

let shared: Agent | undefined;
/** One keep-alive agent per process with bounded timeouts, unless a dispatcher is injected. */
export function defaultDispatcher(timeoutMs = 10_000): Agent {
  shared ??= new Agent({ connectTimeout: timeoutMs, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 10_000 });
  return shared;
}

export interface JsonRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Sends a request and parses the JSON answer; non-2xx becomes IdpError. */
export async function requestJson<T>(req: JsonRequest, opts: HttpOptions = {}): Promise<{ body: T; headers: Record<string, string | string[] | undefined> }> {
  const timeout = opts.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeout;
  let res: Dispatcher.ResponseData;
  try {
    res = await request(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      dispatcher: opts.dispatcher ?? defaultDispatcher(timeout),
      // undici's connect/headers/body timeouts bound each phase and boundedText checks the overall
      // deadline per chunk; an AbortSignal.timeout per request would add a timer, a finalizer and
      // an abort listener to every provider call.
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
  } catch (e) {
    throw new IdpError(0, `request to ${redactUrl(req.url)} failed: ${(e as Error).message}`);
  }
  const text = await boundedText(res, opts.maxBodyBytes ?? MAX_BODY_BYTES, deadline, timeout, req);
  if (res.statusCode < 200 || res.statusCode >= 300) {
    throw new IdpError(res.statusCode, `${req.method} ${redactUrl(req.url)}: ${res.statusCode} ${providerMessage(text)}`);
  }
  try {
    return { body: JSON.parse(text) as T, headers: res.headers };
  } catch {
    throw new IdpError(res.statusCode, `${req.method} ${redactUrl(req.url)}: answer is not JSON`);
  }
}

function providerMessage(text: string): string {
  try {
    const j = JSON.parse(text) as { error?: { message?: string } | string; error_description?: string };
    if (typeof j.error === 'object' && j.error?.message) return j.error.message;
    if (typeof j.error === 'string') return j.error_description ? `${j.error}: ${j.error_description}` : j.error;
  } catch {
    /* not JSON */
  }
  return text.slice(0, 200);
}

/** Drops query strings (filters may be long; nothing secret is ever in a path). */
function redactUrl(url: string): string {
  const i = url.indexOf('?');
  return i === -1 ? url : url.slice(0, i);
}

/** How long a document without any caching header may be kept. */
export const DEFAULT_DOC_LIFETIME_MS = 60_000;

const header = (h: Record<string, string | string[] | undefined>, name: string) => {
  const v = h[name];
  return Array.isArray(v) ? v.join(',') : (v ?? '');
};

/**
 * How long a response may be reused, from Cache-Control (no-store/no-cache/private-free max-age,
 * minus Age) or else Expires (against Date, or the given clock), or else a short default.
 */
export function keyDocLifetimeMs(headers: Record<string, string | string[] | undefined>, nowMs: number): number {
  const cc = header(headers, 'cache-control').toLowerCase();
  if (/(^|[\s,])(no-store|no-cache)\b/.test(cc)) return 0;
  const age = Number(/^\s*(\d+)\s*$/.exec(header(headers, 'age'))?.[1] ?? 0);
  const m = /(?:^|[\s,])max-age\b\s*(?:=\s*"?([^",\s]*))?/.exec(cc);
  if (m) {
    // RFC 9111 4.2.1: a max-age that is not a non-negative integer makes the response stale.
    if (!/^\d+$/.test(m[1] ?? '')) return 0;
    return Math.max(0, Number(m[1]) - age) * 1000;
  }
  const expires = header(headers, 'expires');
  if (expires) {
    const at = Date.parse(expires);
    if (Number.isNaN(at)) return 0; // RFC 9111: an invalid Expires means already expired.
    const date = Date.parse(header(headers, 'date'));
    return Math.max(0, at - (Number.isNaN(date) ? nowMs : date));
  }
  return DEFAULT_DOC_LIFETIME_MS;
}
