// Typed failures of the HTTP client: every error names the method, the URL (server address and
// path; never a token), the server's own messages or what was waited for, so the CLI and Terraform
// can print them and the reconciler can tell retryable from final failures.

export class VaultClientError extends Error {
  constructor(
    /** HTTP status; 0 when no response arrived (connection refused, reset, timeout). */
    readonly status: number,
    readonly method: string,
    /** API path without the /v1/ prefix, e.g. "auth/cloud/role/web". */
    readonly path: string,
    /** The server's `errors` list (empty when it sent none). */
    readonly errors: string[],
    /** Attempts made before giving up (retries included). */
    readonly attempts = 1,
    options: VaultClientErrorOptions = {},
  ) {
    super(describe(status, method, path, errors, attempts, options), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'VaultClientError';
    this.address = options.address;
    this.cancelled = options.cancelled === true;
  }

  /** The server's address (scheme, host, port; no credentials), when known. */
  readonly address?: string;
  /** The request was aborted by the caller (Terraform's StopProvider), not failed by the server. */
  readonly cancelled: boolean;

  /** A connection failure, rate limit or server error: worth retrying later. */
  get retryable(): boolean {
    return isRetryableStatus(this.status);
  }

  static is(e: unknown): e is VaultClientError {
    return e instanceof Error && e.name === 'VaultClientError' && typeof (e as VaultClientError).status === 'number';
  }
}

export interface VaultClientErrorOptions {
  cause?: unknown;
  /** The server's address, named in the message. */
  address?: string;
  /** What was waited for when no response came, e.g. "no response headers within 10s". */
  waited?: string;
  /** Attempts allowed in all (for "attempt 3 of 3"). */
  maxAttempts?: number;
  cancelled?: boolean;
  /** The request carried no token (a 403 then says to set VAULT_TOKEN). */
  noToken?: boolean;
  /** Where the token came from (a 403 then names it). */
  tokenSource?: string;
}

export function isRetryableStatus(status: number): boolean {
  return status === 0 || status === 429 || status >= 500;
}

/** Connection failures that mean nothing listens at the address (or the name does not resolve). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function describe(status: number, method: string, path: string, errors: string[], attempts: number, o: VaultClientErrorOptions): string {
  const what = `${method} ${o.address ?? ''}/v1/${path}`;
  const tries = o.maxAttempts && o.maxAttempts > 1 ? ` (attempt ${attempts} of ${o.maxAttempts})` : '';
  if (o.cancelled) return `${what}: cancelled (Terraform asked the provider to stop)`;
  if (status === 0) {
    if (o.waited) return `${what}: ${o.waited}${tries}`;
    // Duck-typed: errors from another realm (test sandboxes) are not `instanceof Error`.
    const c = o.cause as { code?: unknown; message?: unknown } | undefined;
    const reason = typeof c?.code === 'string' ? c.code : typeof c?.message === 'string' ? c.message : String(o.cause ?? 'no response');
    const hint = UNREACHABLE.has(reason) ? `: check that the server is running at ${o.address ?? 'the address'} and that VAULT_ADDR (or the address setting) points at it` : '';
    return `${what}: no response from the server (${reason})${tries}${hint}`;
  }
  const msgs = errors.map((m) => m.trim()).filter((m) => m !== '');
  const hint =
    status !== 403
      ? ''
      : o.noToken
        ? ' (no token was sent: set VAULT_TOKEN)'
        : o.tokenSource
          ? ` (the token from ${o.tokenSource} was refused by ${o.address ?? 'the server'}: it is not a valid token there, has expired, or its policies do not allow this request; check ${o.tokenSource}${o.tokenSource === 'VAULT_TOKEN' ? '' : ' or set VAULT_TOKEN'})`
          : '';
  return `${what}: HTTP ${status}${msgs.length ? `: ${msgs.join('; ')}` : ''}${isRetryableStatus(status) ? tries : ''}${hint}`;
}
