// JSON over HTTP for the provider client: undici with connect/header/body timeouts, provider error
// bodies turned into IdpError (status + the provider's message; never request credentials).

import { Agent, type Dispatcher } from 'undici';

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

let shared: Agent | undefined;
/** One keep-alive agent per process with bounded timeouts, unless a dispatcher is injected. */
export function defaultDispatcher(timeoutMs = 10_000): Agent {
  shared ??= new Agent({ connectTimeout: timeoutMs, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 10_000 });
  return shared;
}

export interface JsonRequest {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

type Headers = Record<string, string | string[] | undefined>;

/**
 * Sends a request and collects the answer's body, through undici's dispatch handler API: the
 * `request()` wrapper adds a body stream, an async iterator and an async resource per call, which
 * cost about as much CPU again as the HTTP exchange itself, and every login makes such a call.
 * The body is read up to `limit` bytes and until `deadline` (ms since epoch). undici's bodyTimeout
 * only bounds the gap between chunks, so the deadline is checked per chunk: a provider trickling
 * its answer is cut off at most one idle timeout after the deadline, without a timer per request.
 */
function exchange(req: JsonRequest, dispatcher: Dispatcher, timeout: number, limit: number): Promise<{ status: number; headers: Headers; text: string }> {
  const deadline = Date.now() + timeout;
  const where = `${req.method} ${redactUrl(req.url)}`;
  return new Promise((resolve, reject) => {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch (e) {
      return reject(new IdpError(0, `request to ${redactUrl(req.url)} failed: ${(e as Error).message}`));
    }
    let settled = false;
    let status = 0;
    let headers: Headers = {};
    const chunks: Buffer[] = [];
    let size = 0;
    const refuse = (controller: Dispatcher.DispatchController, e: IdpError) => {
      settled = true;
      reject(e);
      controller.abort(e);
    };
    const handler: Dispatcher.DispatchHandler = {
      // Its presence is what makes undici treat the handler as one of this (non-legacy) API.
      onRequestStart() {},
      onResponseStart(controller, statusCode, h) {
        if (settled || statusCode < 200) return; // 1xx: the final answer follows
        status = statusCode;
        headers = h;
        const declared = Number(h['content-length']);
        if (h['content-length'] !== undefined && Number.isFinite(declared) && declared > limit)
          refuse(controller, new IdpError(0, `${where}: answer is larger than ${limit} bytes`));
      },
      onResponseData(controller, chunk) {
        if (settled) return;
        size += chunk.length;
        if (size > limit) return refuse(controller, new IdpError(0, `${where}: answer is larger than ${limit} bytes`));
        if (Date.now() > deadline) return refuse(controller, new IdpError(0, `${where}: answer did not finish within ${timeout} ms`));
        chunks.push(chunk);
      },
      onResponseEnd() {
        if (settled) return;
        settled = true;
        resolve({ status, headers, text: chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8') });
      },
      onResponseError(_controller, e) {
        if (settled) return;
        settled = true;
        reject(status === 0 ? new IdpError(0, `request to ${redactUrl(req.url)} failed: ${e.message}`) : new IdpError(0, `${where}: reading the answer failed: ${e.message}`));
      },
    };
    // undici's connect/headers/body timeouts bound each phase and onResponseData checks the overall
    // deadline per chunk; an AbortSignal.timeout per request would add a timer, a finalizer and
    // an abort listener to every provider call.
    try {
      dispatcher.dispatch(
        { origin: url.origin, path: `${url.pathname}${url.search}`, method: req.method, headers: req.headers, body: req.body, headersTimeout: timeout, bodyTimeout: timeout },
        handler,
      );
    } catch (e) {
      if (!settled) reject(new IdpError(0, `request to ${redactUrl(req.url)} failed: ${(e as Error).message}`));
      settled = true;
    }
  });
}

/** Sends a request and parses the JSON answer; non-2xx becomes IdpError. */
export async function requestJson<T>(req: JsonRequest, opts: HttpOptions = {}): Promise<{ body: T; headers: Headers }> {
  const timeout = opts.timeoutMs ?? 10_000;
  const res = await exchange(req, opts.dispatcher ?? defaultDispatcher(timeout), timeout, opts.maxBodyBytes ?? MAX_BODY_BYTES);
  if (res.status < 200 || res.status >= 300) {
    throw new IdpError(res.status, `${req.method} ${redactUrl(req.url)}: ${res.status} ${providerMessage(res.text)}`);
  }
  try {
    // DELETE answers may be empty.
    return { body: (res.text.trim() === '' ? {} : JSON.parse(res.text)) as T, headers: res.headers };
  } catch {
    throw new IdpError(res.status, `${req.method} ${redactUrl(req.url)}: answer is not JSON`);
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
