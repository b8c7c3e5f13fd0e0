// Workload identity federation as Vault's GCP plugin does it (golang.org/x/oauth2 externalaccount
// with a plugin identity token supplier): sign a subject token, exchange it at the Security Token
// Service (RFC 8693) for a federated token, then impersonate the configured service account with
// IAM Credentials generateAccessToken. No key anywhere. Each failure names its step and never
// quotes a token.

import { CachingSource, CLOUD_PLATFORM_SCOPE, type TokenAnswer } from './credentials';
import { IdpError, requestJson, type HttpOptions } from './http';
import type { NowSource } from './cache';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const JWT_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
/** generateAccessToken's ceiling without an organization policy exception. */
export const MAX_IMPERSONATION_SECONDS = 3600;

export interface FederationConfig {
  /** identity_token_audience: the subject token's `aud`; the STS audience is it without "https:". */
  audience: string;
  serviceAccountEmail: string;
  /** identity_token_ttl in seconds (subject token lifetime, and the impersonated token's, capped at 1 h). */
  ttlSeconds: number;
  /** Signs a plugin identity token for this audience and lifetime (the engine's identity key). */
  subjectToken(audience: string, ttlSeconds: number): Promise<string>;
}

export interface FederationEndpoints {
  /** Full URL of the STS token endpoint (…/v1/token). */
  sts: string;
  /** Base URL of IAM Credentials (…/v1/projects/-/serviceAccounts/<email>:generateAccessToken is appended). */
  iamcredentials: string;
}

const step = (name: string, e: unknown) => new IdpError(0, `${name} failed: ${e instanceof Error ? e.message : String(e)}`);

export class FederatedSource extends CachingSource {
  readonly description: string;

  constructor(
    private readonly cfg: FederationConfig,
    private readonly endpoints: FederationEndpoints,
    clock: NowSource,
    http: HttpOptions,
  ) {
    super(clock, http);
    this.description = `workload identity federation (service account ${cfg.serviceAccountEmail})`;
  }

  protected async fetchToken(): Promise<TokenAnswer> {
    let subject: string;
    try {
      subject = await this.cfg.subjectToken(this.cfg.audience, this.cfg.ttlSeconds);
    } catch (e) {
      throw step('plugin identity token signing', e);
    }
    let federated: string;
    try {
      const form = new URLSearchParams({
        grant_type: TOKEN_EXCHANGE_GRANT,
        audience: this.cfg.audience.replace(/^https:/, ''),
        scope: CLOUD_PLATFORM_SCOPE,
        requested_token_type: ACCESS_TOKEN_TYPE,
        subject_token: subject,
        subject_token_type: JWT_TOKEN_TYPE,
      });
      const { body } = await requestJson<{ access_token?: string }>(
        { method: 'POST', url: this.endpoints.sts, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() },
        this.http,
      );
      if (!body.access_token) throw new IdpError(0, 'the answer has no access_token');
      federated = body.access_token;
    } catch (e) {
      throw step('token exchange at the Security Token Service', e);
    }
    const email = this.cfg.serviceAccountEmail;
    try {
      const lifetime = Math.min(Math.max(1, this.cfg.ttlSeconds), MAX_IMPERSONATION_SECONDS);
      const { body } = await requestJson<{ accessToken?: string; expireTime?: string }>(
        {
          method: 'POST',
          url: `${this.endpoints.iamcredentials}/v1/projects/-/serviceAccounts/${encodeURIComponent(email)}:generateAccessToken`,
          headers: { authorization: `Bearer ${federated}`, 'content-type': 'application/json' },
          body: JSON.stringify({ scope: [CLOUD_PLATFORM_SCOPE], lifetime: `${lifetime}s` }),
        },
        this.http,
      );
      if (!body.accessToken) throw new IdpError(0, 'the answer has no accessToken');
      const expires = Date.parse(body.expireTime ?? '');
      const expiresIn = Number.isNaN(expires) ? lifetime : Math.floor((expires - this.clock.now()) / 1000);
      return { access_token: body.accessToken, expires_in: expiresIn };
    } catch (e) {
      throw step(`impersonation of ${email} (IAM Credentials generateAccessToken)`, e);
    }
  }
}
