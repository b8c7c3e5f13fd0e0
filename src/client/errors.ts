// Typed failures of the HTTP client: every error names the method, the path and the server's own
// messages, so the CLI can print them and the reconciler can tell retryable from final failures.

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
    options?: { cause?: unknown },
  ) {
    super(describe(status, method, path, errors, options?.cause), options);
    this.name = 'VaultClientError';
  }

  /** A connection failure, rate limit or server error: worth retrying later. */
  get retryable(): boolean {
    return isRetryableStatus(this.status);
  }

  static is(e: unknown): e is VaultClientError {
    return e instanceof Error && e.name === 'VaultClientError' && typeof (e as VaultClientError).status === 'number';
  }
}

export function isRetryableStatus(status: number): boolean {
  return status === 0 || status === 429 || status >= 500;
}

function describe(status: number, method: string, path: string, errors: string[], cause: unknown): string {
  const what = `${method} /v1/${path}`;
  if (status === 0) {
    // Duck-typed: errors from another realm (test sandboxes) are not `instanceof Error`.
    const c = cause as { code?: unknown; message?: unknown } | undefined;
    const reason = typeof c?.code === 'string' ? c.code : typeof c?.message === 'string' ? c.message : String(cause ?? 'no response');
    return `${what}: no response from the server (${reason})`;
  }
  const msgs = errors.map((m) => m.trim()).filter((m) => m !== '');
  return `${what}: HTTP ${status}${msgs.length ? `: ${msgs.join('; ')}` : ''}`;
}
