// The HTTP core of the typed client: one request function over an undici dispatcher (keep-alive),
// Vault's headers and envelope, retries with exponential backoff and full jitter on 429, 5xx and
// connection failures, and VaultClientError for everything else.

import type { Dispatcher } from 'undici';
import { VaultClientError, isRetryableStatus } from './errors';
import { createDispatcher, defaultRetryPolicy, type ClientSettings, type RetryPolicy } from './options';

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
}

interface RawResponse {
  status: number;
  body: unknown;
}

export class HttpClient {
  readonly address: string;
  readonly namespace?: string;
  private readonly token?: string;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly hooks: ClientHooks;
  /** The server's error texts in keyward's words (set once the dialect is known). */
  protected errorTexts: (errors: string[]) => string[] = (e) => e;

  constructor(settings: ClientSettings, hooks: ClientHooks = {}, dispatcher?: Dispatcher) {
    this.address = settings.address.replace(/\/+$/, '');
    this.token = settings.token;
    this.namespace = settings.namespace || undefined;
    this.retry = { ...defaultRetryPolicy, ...settings.retry };
    this.timeoutMs = settings.timeoutMs ?? 30_000;
    this.hooks = hooks;
    this.ownsDispatcher = !dispatcher;
    this.dispatcher = dispatcher ?? createDispatcher(settings);
  }

  /** Sends one request (with retries). `allow` lists non-2xx statuses returned instead of thrown. */
  async request(method: Method, path: string, body?: unknown, opts: RequestOptions = {}): Promise<RawResponse> {
    const allow = opts.allow ?? [];
    const p = path.replace(/^\/+/, '');
    let attempt = 0;
    for (;;) {
      attempt++;
      let res: RawResponse | undefined;
      let cause: unknown;
      try {
        res = await this.once(method, p, body, opts.rootNamespace === true);
      } catch (e) {
        cause = e;
      }
      const status = res?.status ?? 0;
      if (res && (status < 300 || allow.includes(status))) return res;
      if (!isRetryableStatus(status) || attempt >= this.retry.attempts || isTlsFailure(cause)) {
        throw new VaultClientError(status, method, p, this.errorTexts(errorsOf(res?.body)), attempt, cause ? { cause } : undefined);
      }
      const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
      const delayMs = Math.round((this.hooks.random ?? Math.random)() * ceiling);
      this.hooks.onRetry?.({ method, path: p, attempt, status, delayMs });
      await (this.hooks.sleep ?? defaultSleep)(delayMs);
    }
  }

  private async once(method: Method, path: string, body: unknown, root: boolean): Promise<RawResponse> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.token) headers['x-vault-token'] = this.token;
    if (this.namespace && !root) headers['x-vault-namespace'] = this.namespace;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    const res = await this.dispatcher.request({
      origin: this.address,
      path: `/v1/${path}`,
      method,
      headers,
      body: payload,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    });
    const text = await res.body.text();
    if (text.trim() === '') return { status: res.statusCode, body: undefined };
    try {
      return { status: res.statusCode, body: JSON.parse(text) };
    } catch {
      // A truncated or non-JSON body from a proxy: a 2xx we cannot read is a failed exchange.
      if (res.statusCode < 300) throw new Error(`unreadable response body (${text.length} bytes)`);
      return { status: res.statusCode, body: { errors: [text.slice(0, 200)] } };
    }
  }

  async close(): Promise<void> {
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

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
