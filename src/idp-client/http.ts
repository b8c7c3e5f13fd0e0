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
  let res: Dispatcher.ResponseData;
  try {
    res = await request(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      dispatcher: opts.dispatcher ?? defaultDispatcher(timeout),
      headersTimeout: timeout,
      bodyTimeout: timeout,
      signal: AbortSignal.timeout(timeout),
    });
  } catch (e) {
    throw new IdpError(0, `request to ${redactUrl(req.url)} failed: ${(e as Error).message}`);
  }
  const text = await res.body.text();
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

/** max-age from a Cache-Control header, in seconds, if any. */
export function maxAge(headers: Record<string, string | string[] | undefined>): number | undefined {
  const cc = headers['cache-control'];
  const m = /max-age=(\d+)/.exec(Array.isArray(cc) ? cc.join(',') : (cc ?? ''));
  return m ? Number(m[1]) : undefined;
}
