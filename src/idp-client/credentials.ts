// Outbound credentials for provider calls: a service-account key (JWT-bearer exchange at its
// token_uri), else ambient credentials: the key file named by GOOGLE_APPLICATION_CREDENTIALS, then
// the metadata server (GCE_METADATA_HOST or 169.254.169.254). Access tokens are cached until shortly
// before they expire.

import { readFile } from 'node:fs/promises';
import { createPrivateKey, sign } from 'node:crypto';
import { IdpError, requestJson, type HttpOptions } from './http';
import type { NowSource } from './cache';

export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
export const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';

export interface KeyCredentials {
  client_email: string;
  private_key: string;
  private_key_id: string;
  token_uri?: string;
}

export interface TokenSource {
  /** A bearer access token (cached). */
  accessToken(): Promise<string>;
  /** Where the credentials came from, for logs and errors (never the secret). */
  readonly description: string;
}

export interface TokenAnswer {
  access_token?: string;
  expires_in?: number;
}

/** Caches an access token until a minute before it expires; concurrent callers share one fetch. */
export abstract class CachingSource implements TokenSource {
  private token?: { value: string; expires: number };
  private pending?: Promise<string>;
  abstract readonly description: string;

  constructor(
    protected readonly clock: NowSource,
    protected readonly http: HttpOptions,
  ) {}

  protected abstract fetchToken(): Promise<TokenAnswer>;

  accessToken(): Promise<string> {
    if (this.token && this.token.expires > this.clock.now()) return Promise.resolve(this.token.value);
    this.pending ??= this.fetchToken()
      .then((a) => {
        if (!a.access_token) throw new IdpError(0, `${this.description}: token answer has no access_token`);
        // Refresh a minute early; never cache longer than the answer says.
        const life = Math.max(0, (a.expires_in ?? 300) - 60) * 1000;
        this.token = { value: a.access_token, expires: this.clock.now() + life };
        return a.access_token;
      })
      .finally(() => (this.pending = undefined));
    return this.pending;
  }
}

/** JWT-bearer grant (RFC 7523) with a service-account key. */
export class ServiceAccountKeySource extends CachingSource {
  readonly description: string;
  constructor(
    private readonly key: KeyCredentials,
    clock: NowSource,
    http: HttpOptions,
    private readonly scope = CLOUD_PLATFORM_SCOPE,
  ) {
    super(clock, http);
    this.description = `service account key ${key.private_key_id} (${key.client_email})`;
  }

  protected async fetchToken(): Promise<TokenAnswer> {
    const tokenUri = this.key.token_uri || DEFAULT_TOKEN_URI;
    const now = Math.floor(this.clock.now() / 1000);
    const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const input = `${enc({ alg: 'RS256', typ: 'JWT', kid: this.key.private_key_id })}.${enc({
      iss: this.key.client_email,
      scope: this.scope,
      aud: tokenUri,
      iat: now,
      exp: now + 3600,
    })}`;
    const sig = sign('RSA-SHA256', Buffer.from(input), createPrivateKey(this.key.private_key)).toString('base64url');
    const body = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: `${input}.${sig}` });
    const { body: answer } = await requestJson<TokenAnswer>(
      { method: 'POST', url: tokenUri, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: body.toString() },
      this.http,
    );
    return answer;
  }
}

/** The metadata server of the VM the server runs on. */
export class MetadataServerSource extends CachingSource {
  readonly description: string;
  constructor(
    private readonly host: string,
    clock: NowSource,
    http: HttpOptions,
  ) {
    super(clock, http);
    this.description = `metadata server ${host}`;
  }

  protected async fetchToken(): Promise<TokenAnswer> {
    const base = this.host.includes('://') ? this.host : `http://${this.host}`;
    const { body } = await requestJson<TokenAnswer>(
      { method: 'GET', url: `${base}/computeMetadata/v1/instance/service-accounts/default/token`, headers: { 'Metadata-Flavor': 'Google' } },
      { ...this.http, timeoutMs: Math.min(this.http.timeoutMs ?? 3000, 3000) },
    );
    return body;
  }
}

/**
 * Picks the token source: configured key, else GOOGLE_APPLICATION_CREDENTIALS (a service-account
 * key file), else the metadata server. Errors name the source, never key material.
 */
export async function resolveTokenSource(configured: KeyCredentials | undefined, env: NodeJS.ProcessEnv, clock: NowSource, http: HttpOptions): Promise<TokenSource> {
  if (configured) return new ServiceAccountKeySource(configured, clock, http);
  const file = env.GOOGLE_APPLICATION_CREDENTIALS;
  if (file) {
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    } catch (e) {
      throw new IdpError(0, `cannot read GOOGLE_APPLICATION_CREDENTIALS file ${file}: ${(e as NodeJS.ErrnoException).code ?? 'invalid JSON'}`);
    }
    if (parsed.type !== 'service_account' || typeof parsed.private_key !== 'string' || typeof parsed.client_email !== 'string') {
      throw new IdpError(0, `GOOGLE_APPLICATION_CREDENTIALS file ${file} is not a service-account key (type "service_account" with client_email and private_key)`);
    }
    return new ServiceAccountKeySource(
      {
        client_email: parsed.client_email,
        private_key: parsed.private_key,
        private_key_id: String(parsed.private_key_id ?? ''),
        token_uri: typeof parsed.token_uri === 'string' ? parsed.token_uri : undefined,
      },
      clock,
      http,
    );
  }
  return new MetadataServerSource(env.GCE_METADATA_HOST || '169.254.169.254', clock, http);
}
