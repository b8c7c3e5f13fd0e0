// The HTTP core of the typed client: one request function over an undici dispatcher (keep-alive),
// Vault's headers and envelope, retries with exponential backoff and full jitter on 429, 5xx and
// connection failures, a per-attempt timeout, cancellation through an AbortSignal, redirects
// followed as Vault's client follows them, and VaultClientError for everything else.

import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { VaultClientError, isRetryableStatus } from './errors';
import { createDispatcher, defaultRetryPolicy, type ClientSettings, type RetryPolicy } from './options';
import { followRedirect, type Hop } from './redirects';
import { DEFAULT_TIMEOUT_MS, formatTimeout } from './time-bounds';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'LIST';

/** Vault's response envelope (fields the client uses). */
export interface Envelope<T = Record<string, unknown>> {
  request_id?: string;
  data: T | null;
  warnings: string[] | null;
  auth?: unknown;
}

export interface RetryEvent {
  method: Method;
  path: string;
  attempt: number;
  status: number;
  delayMs: number;
}

export interface ClientHooks {
  /** Called before each retry (for progress and logs: method, path and status only, no bodies). */
  onRetry?: (e: RetryEvent) => void;
  /** Injected for tests; defaults to setTimeout. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export interface RequestOptions {
  /** Non-2xx statuses returned to the caller instead of thrown (e.g. 404 = absent). */
  allow?: number[];
  /** Send without the namespace header (root-only paths such as sys/storage). */
  rootNamespace?: boolean;
  /**
   * The request changes state on each call (mount enable, sys/remount, rotate-root): retried only
   * when the server certainly did nothing (429, or no connection made), never after a 5xx or a lost
   * response; the caller re-reads the state instead.
   */
  notIdempotent?: boolean;
}

interface RawResponse {
  status: number;
  body: unknown;
  /** The server's Retry-After, in milliseconds (429/503). */
  retryAfterMs?: number;
  /** The body was not JSON: not a Vault-compatible answer (body.errors says so, without the body). */
  notJson?: boolean;
}

/** Longest Retry-After honoured; a longer one fails the request with the server's message. */
const MAX_RETRY_AFTER_MS = 30_000;

/** Connection failures where the request never reached a server: safe to retry any request. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** Retry-After as seconds or an HTTP date (RFC 9110 10.2.3). */
export function retryAfterMs(v: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(v) ? v[0] : v;
  if (text === undefined || text.trim() === '') return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export class HttpClient {
  readonly address: string;
  readonly namespace?: string;
  private readonly token?: string;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly retry: RetryPolicy;
  /** close() was called: no request retries from then on (see request). */
  private closed = false;
  private readonly timeoutMs: number;
  private readonly hooks: ClientHooks;
  private readonly signal?: AbortSignal;
  /** X-Vault-Index of the latest response that carried one (a write's state), sent on later requests. */
  private lastIndex?: string;
  /** Where the token came from (VAULT_TOKEN, a token file), for a refused token's message. */
  private readonly tokenSource?: string;
  /** The server's error texts in keyward's words (set once the dialect is known). */
  protected errorTexts: (errors: string[]) => string[] = (e) => e;

  constructor(settings: ClientSettings, hooks: ClientHooks = {}, dispatcher?: Dispatcher) {
    this.address = settings.address.replace(/\/+$/, '');
    this.token = settings.token;
    this.tokenSource = settings.tokenSource;
    this.namespace = settings.namespace || undefined;
    this.retry = { ...defaultRetryPolicy, ...settings.retry };
    this.timeoutMs = settings.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.signal = settings.signal;
    this.hooks = hooks;
    this.ownsDispatcher = !dispatcher;
    this.dispatcher = dispatcher ?? createDispatcher({ ...settings, timeoutMs: this.timeoutMs });
  }

  /** Sends one request (with retries). `allow` lists non-2xx statuses returned instead of thrown. */
  async request(method: Method, path: string, body?: unknown, opts: RequestOptions = {}): Promise<RawResponse> {
    const allow = opts.allow ?? [];
    const p = path.replace(/^\/+/, '');
    const fail = (status: number, body: unknown, attempt: number, cause?: unknown) =>
      new VaultClientError(status, method, p, this.errorTexts(errorsOf(body)), attempt, {
        cause,
        address: this.displayAddress(),
        waited: cause === undefined ? undefined : this.waitedFor(cause),
        maxAttempts: this.retry.attempts,
        cancelled: this.signal?.aborted,
        noToken: !this.token,
        tokenSource: this.tokenSource,
      });
    let attempt = 0;
    for (;;) {
      attempt++;
      if (this.signal?.aborted) throw fail(0, undefined, attempt - 1, this.signal.reason);
      let res: RawResponse | undefined;
      let cause: unknown;
      try {
        res = await this.once(method, p, body, opts.rootNamespace === true);
      } catch (e) {
        cause = e;
      }
      const status = res?.status ?? 0;
      if (res && !res.notJson && (status < 300 || allow.includes(status))) return res;
      // A success we cannot read is not worth retrying: the address is not a Vault-like server.
      if (res?.notJson && status < 300) throw fail(status, res.body, attempt);
      // 412: a performance standby lacking the state of our last write (X-Vault-Index): try again.
      const retryable = isRetryableStatus(status) || status === 412;
      const safe = !opts.notIdempotent || status === 429 || status === 412 || (status === 0 && NOT_SENT.has(String((cause as { code?: unknown } | undefined)?.code)));
      const after = res?.retryAfterMs;
      // Closed: the command has its answer (a sibling's fatal 4xx, or the end of the run). A request
      // still in flight that then fails is not retried or reported: its retry lines would follow
      // the command's Error line and suggest the server had not answered.
      if (
        this.closed ||
        this.signal?.aborted ||
        !retryable ||
        !safe ||
        attempt >= this.retry.attempts ||
        isTlsFailure(cause) ||
        (after !== undefined && after > MAX_RETRY_AFTER_MS)
      ) {
        throw fail(status, res?.body, attempt, cause);
      }
      const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
      // The server's Retry-After is a floor under the jittered backoff.
      // A standby behind (412) catches up with time: wait the full step, not a jittered fraction.
      const delayMs = Math.max(after ?? 0, Math.round((status === 412 ? 1 : (this.hooks.random ?? Math.random)()) * ceiling));
      this.hooks.onRetry?.({ method, path: p, attempt, status, delayMs });
      try {
        await (this.hooks.sleep ? abortable(this.hooks.sleep(delayMs), this.signal) : sleep(delayMs, undefined, { signal: this.signal }));
      } catch (e) {
        throw fail(status, res?.body, attempt, e);
      }
      if (this.closed) throw fail(status, res?.body, attempt, cause);
    }
  }

  /** The address as errors show it: no user or password. */
  private displayAddress(): string {
    try {
      const u = new URL(this.address);
      u.username = '';
      u.password = '';
      return u.toString().replace(/\/+$/, '');
    } catch {
      return this.address;
    }
  }

  /** What an attempt that got no response waited for, from undici's timeout codes. */
  private waitedFor(cause: unknown): string | undefined {
    const code = (cause as { code?: unknown } | undefined)?.code;
    const t = formatTimeout(this.timeoutMs);
    if (code === 'UND_ERR_HEADERS_TIMEOUT') return `no response headers within ${t}`;
    if (code === 'UND_ERR_BODY_TIMEOUT') return `the response body stalled for ${t}`;
    if (code === 'UND_ERR_CONNECT_TIMEOUT') return `no connection within ${t}`;
    return undefined;
  }

  private async once(method: Method, path: string, body: unknown, root: boolean): Promise<RawResponse> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const start = new URL(this.address);
    // An address with a path (a proxy's prefix) keeps it, as Vault's client joins it with /v1/.
    let hop: Hop = { origin: start.origin, path: `${start.pathname.replace(/\/+$/, '')}/v1/${path}`, sameScheme: true };
    for (let redirects = 0; ; redirects++) {
      const headers: Record<string, string> = { accept: 'application/json' };
      // The token goes to the configured server and to redirect targets of the same scheme only.
      if (this.token && hop.sameScheme) headers['x-vault-token'] = this.token;
      if (this.namespace && !root) headers['x-vault-namespace'] = this.namespace;
      // Read-after-write on performance standbys (Vault Enterprise consistency model): the state
      // our last write produced; a node that lacks it answers 412 and the request is retried.
      if (this.lastIndex) headers['x-vault-index'] = this.lastIndex;
      if (payload !== undefined) headers['content-type'] = 'application/json';
      const res = await this.dispatcher.request({
        origin: hop.origin,
        path: hop.path,
        method,
        headers,
        body: payload,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: this.signal,
      });
      const text = await res.body.text();
      const index = res.headers['x-vault-index'];
      if (typeof index === 'string' && index !== '') this.lastIndex = index;
      if (res.statusCode === 307 || res.statusCode === 308) {
        const next = followRedirect(start, hop, res.headers.location, redirects);
        if ('refused' in next) return { status: res.statusCode, body: { errors: [next.refused] } };
        hop = next;
        continue;
      }
      const wait = res.statusCode === 429 || res.statusCode === 503 ? retryAfterMs(res.headers['retry-after']) : undefined;
      const extra = wait === undefined ? {} : { retryAfterMs: wait };
      if (text.trim() === '') return { status: res.statusCode, body: undefined, ...extra };
      try {
        return { status: res.statusCode, body: JSON.parse(text), ...extra };
      } catch {
        // Not JSON (a web server's XML or HTML page, a proxy's error): said as such, never echoed.
        const type = String(res.headers['content-type'] ?? 'no content-type').split(';')[0];
        const msg = `the server did not answer like Vault: its response is ${type} (${text.length} bytes), not JSON. Is ${this.displayAddress()} a Vault-compatible server? Check VAULT_ADDR or the stack's address`;
        return { status: res.statusCode, body: { errors: [msg] }, notJson: true, ...extra };
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}

function errorsOf(body: unknown): string[] {
  if (body && typeof body === 'object' && Array.isArray((body as { errors?: unknown }).errors)) {
    return (body as { errors: unknown[] }).errors.map(String);
  }
  return [];
}

/** Certificate problems do not heal with time: no retry. */
function isTlsFailure(e: unknown): boolean {
  const code = (e as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(code);
}

/** A wait that ends early (rejecting) when the signal aborts. */
function abortable(wait: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return wait;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    wait.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
