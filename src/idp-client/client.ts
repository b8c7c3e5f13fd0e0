// Client for the identity provider's REST APIs used by the cloud auth method: public key documents
// (OAuth2 certs, service-account x509 metadata), IAM serviceAccounts.get, Compute instances and
// instance groups, Resource Manager ancestry. Base URLs come from custom_endpoint overrides.
// Freshness as Vault's: identity lookups go to the provider every time (an opt-in cache trades
// that for throughput); key documents are kept only as long as their Cache-Control/Expires allow,
// at most 10 minutes (injected clock).

import { createPublicKey, type KeyObject } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { resolveEndpoint, type EndpointKey } from '../schema/cloud-config';
import { TtlCache, type NowSource } from './cache';
import { resolveTokenSource, type KeyCredentials, type TokenSource } from './credentials';
import { FederatedSource, type FederationConfig } from './federation';
import { IdpError, keyDocLifetimeMs, requestJson, type HttpOptions } from './http';

export interface IdpClientOptions {
  /** custom_endpoint overrides as stored (validated forms). */
  endpoints?: Partial<Record<EndpointKey, string>>;
  /** Configured service-account key; ambient credentials when absent (and no federation). */
  credentials?: KeyCredentials;
  /** Workload identity federation: no key, tokens by exchange and impersonation. */
  federation?: FederationConfig;
  env?: NodeJS.ProcessEnv;
  clock: NowSource;
  dispatcher?: Dispatcher;
  timeoutMs?: number;
  /**
   * Upper bound for key documents; their Cache-Control/Expires decide below it (no-store/no-cache:
   * never kept; no header: 60 s). Default and ceiling: 10 minutes.
   */
  keyCacheMs?: number;
  /**
   * Opt-in reuse of IAM/Compute/CRM lookups across logins and renewals, in ms. Default 0: every
   * login and renewal asks the provider, so a disabled or deleted account or a stopped instance is
   * refused at once. With N > 0 such a change may go unnoticed for up to N ms.
   */
  lookupCacheMs?: number;
}

export interface ServiceAccountInfo {
  email: string;
  uniqueId: string;
  projectId: string;
  disabled: boolean;
}

export interface InstanceInfo {
  id: string;
  name: string;
  zone: string;
  status: string;
  creationTimestamp: string;
  labels: Record<string, string>;
  selfLink: string;
}

export interface GroupLocations {
  /** group name -> zones where a zonal group of that name exists */
  zonal: Map<string, string[]>;
  /** group name -> regions where a regional group of that name exists */
  regional: Map<string, string[]>;
}

interface KeyDoc {
  keys: Map<string, KeyObject>;
  fetchedAt: number;
}

/** Never keep a key document longer than this, whatever its headers say (a deleted key dies within it). */
export const MAX_KEY_DOC_MS = 600_000;

const lastSegment = (url: string) => url.slice(url.lastIndexOf('/') + 1);

export class IdpClient {
  private readonly http: HttpOptions;
  private readonly base: Record<EndpointKey, string>;
  private readonly keyDocs: TtlCache<KeyDoc>;
  private readonly lookups: TtlCache<unknown>;
  private tokenSource?: Promise<TokenSource>;
  private readonly keyCacheMs: number;
  private readonly lookupCacheMs: number;

  constructor(private readonly opts: IdpClientOptions) {
    this.http = { dispatcher: opts.dispatcher, timeoutMs: opts.timeoutMs ?? 10_000 };
    const e = opts.endpoints ?? {};
    this.base = {
      api: resolveEndpoint('api', e.api),
      iam: resolveEndpoint('iam', e.iam),
      crm: resolveEndpoint('crm', e.crm),
      compute: resolveEndpoint('compute', e.compute),
      sts: resolveEndpoint('sts', e.sts),
      iamcredentials: resolveEndpoint('iamcredentials', e.iamcredentials),
    };
    this.keyDocs = new TtlCache(opts.clock, 10_000);
    this.lookups = new TtlCache(opts.clock, 10_000);
    this.keyCacheMs = Math.min(opts.keyCacheMs ?? MAX_KEY_DOC_MS, MAX_KEY_DOC_MS);
    this.lookupCacheMs = Math.max(0, opts.lookupCacheMs ?? 0);
  }

  private async authHeaders(): Promise<Record<string, string>> {
    const fed = this.opts.federation;
    this.tokenSource ??= fed
      ? Promise.resolve(
          new FederatedSource(
            fed,
            // An override may name the token URL itself (…/v1/token) or the service root, as may IAM Credentials' (…/v1).
            { sts: /\/token$/.test(this.base.sts) ? this.base.sts : `${this.base.sts}/v1/token`, iamcredentials: this.base.iamcredentials.replace(/\/v1$/, '') },
            this.opts.clock,
            this.http,
          ),
        )
      : resolveTokenSource(this.opts.credentials, this.opts.env ?? process.env, this.opts.clock, this.http);
    let source: TokenSource;
    try {
      source = await this.tokenSource;
    } catch (e) {
      this.tokenSource = undefined;
      throw e;
    }
    try {
      return { authorization: `Bearer ${await source.accessToken()}` };
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      throw new IdpError(e instanceof IdpError ? e.status : 0, `cannot obtain an access token from ${source.description}: ${msg}`);
    }
  }

  private async authed<T>(method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown): Promise<T> {
    const headers = await this.authHeaders();
    if (body !== undefined) headers['content-type'] = 'application/json';
    return (await requestJson<T>({ method, url, headers, body: body === undefined ? undefined : JSON.stringify(body) }, this.http)).body;
  }

  private async loadKeyDoc(url: string): Promise<{ value: KeyDoc; ttlMs: number }> {
    const { body, headers } = await requestJson<Record<string, string>>({ method: 'GET', url }, this.http);
    const keys = new Map<string, KeyObject>();
    for (const [kid, pem] of Object.entries(body)) {
      try {
        keys.set(kid, createPublicKey(pem));
      } catch {
        // An unparseable entry cannot verify anything; skip it rather than fail every kid.
      }
    }
    const ttlMs = Math.min(this.keyCacheMs, keyDocLifetimeMs(headers, this.opts.clock.now()));
    return { value: { keys, fetchedAt: this.opts.clock.now() }, ttlMs };
  }

  /** Looks a kid up in a key document; a miss re-fetches once if the cached copy is over 30 s old (rotation). */
  private async keyFrom(url: string, kid: string): Promise<KeyObject | undefined> {
    const doc = await this.keyDocs.getOrLoad(url, () => this.loadKeyDoc(url));
    const k = doc.keys.get(kid);
    if (k || this.opts.clock.now() - doc.fetchedAt < 30_000) return k;
    // Concurrent logins with unknown kids share one refetch.
    return (await this.keyDocs.reload(url, () => this.loadKeyDoc(url))).keys.get(kid);
  }

  /** The provider's OAuth2 signing key (instance identity tokens, Google-signed tokens). */
  oauth2Key(kid: string): Promise<KeyObject | undefined> {
    return this.keyFrom(`${this.base.api}/oauth2/v1/certs`, kid);
  }

  /** A public key of a service account (user-managed or provider-managed, e.g. signJwt). */
  serviceAccountKey(sub: string, kid: string): Promise<KeyObject | undefined> {
    return this.keyFrom(`${this.base.api}/service_accounts/v1/metadata/x509/${encodeURIComponent(sub)}?alt=json`, kid);
  }

  private cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    if (this.lookupCacheMs === 0) return load();
    return this.lookups.getOrLoad(key, async () => ({ value: await load(), ttlMs: this.lookupCacheMs })) as Promise<T>;
  }

  /** IAM serviceAccounts.get by email or unique id. */
  getServiceAccount(id: string): Promise<ServiceAccountInfo> {
    return this.cached(`sa:${id}`, async () => {
      const a = await this.authed<Record<string, unknown>>('GET', `${this.base.iam}/v1/projects/-/serviceAccounts/${encodeURIComponent(id)}`);
      return { email: String(a.email ?? ''), uniqueId: String(a.uniqueId ?? ''), projectId: String(a.projectId ?? ''), disabled: a.disabled === true };
    });
  }

  /** A bearer access token as the provider calls use it (to check the credentials work). */
  async accessToken(): Promise<string> {
    return (await this.authHeaders()).authorization.slice('Bearer '.length);
  }

  /** IAM serviceAccounts.keys.create: a new user-managed key, returned as its key-file JSON text. */
  async createServiceAccountKey(email: string): Promise<string> {
    const r = await this.authed<{ privateKeyData?: string }>('POST', `${this.base.iam}/v1/projects/-/serviceAccounts/${encodeURIComponent(email)}/keys`, {
      keyAlgorithm: 'KEY_ALG_RSA_2048',
      privateKeyType: 'TYPE_GOOGLE_CREDENTIALS_FILE',
    });
    if (!r.privateKeyData) throw new IdpError(0, 'the key creation answer has no privateKeyData');
    return Buffer.from(r.privateKeyData, 'base64').toString('utf8');
  }

  /** IAM serviceAccounts.keys.delete. */
  async deleteServiceAccountKey(project: string, email: string, kid: string): Promise<void> {
    await this.authed('DELETE', `${this.base.iam}/v1/projects/${encodeURIComponent(project || '-')}/serviceAccounts/${encodeURIComponent(email)}/keys/${encodeURIComponent(kid)}`);
  }

  /** Compute instances.get. */
  getInstance(project: string, zone: string, name: string): Promise<InstanceInfo> {
    const path = `projects/${encodeURIComponent(project)}/zones/${encodeURIComponent(zone)}/instances/${encodeURIComponent(name)}`;
    return this.cached(`inst:${path}`, async () => {
      const i = await this.authed<Record<string, unknown>>('GET', `${this.base.compute}/${path}`);
      return {
        id: String(i.id ?? ''),
        name: String(i.name ?? ''),
        zone: lastSegment(String(i.zone ?? '')),
        status: String(i.status ?? ''),
        creationTimestamp: String(i.creationTimestamp ?? ''),
        labels: (i.labels as Record<string, string> | undefined) ?? {},
        selfLink: String(i.selfLink ?? `${this.base.compute}/${path}`),
      };
    });
  }

  /** Where each instance group of a project lives (aggregatedList, all pages). */
  instanceGroupLocations(project: string): Promise<GroupLocations> {
    return this.cached(`groups:${project}`, async () => {
      const out: GroupLocations = { zonal: new Map(), regional: new Map() };
      let pageToken = '';
      for (let page = 0; page < 100; page++) {
        const q = new URLSearchParams({ fields: 'items/*/instanceGroups/name,nextPageToken' });
        if (pageToken) q.set('pageToken', pageToken);
        const r = await this.authed<{ items?: Record<string, { instanceGroups?: { name: string }[] }>; nextPageToken?: string }>(
          'GET',
          `${this.base.compute}/projects/${encodeURIComponent(project)}/aggregated/instanceGroups?${q}`,
        );
        for (const [scope, v] of Object.entries(r.items ?? {})) {
          const [kind, where] = scope.split('/');
          const target = kind === 'zones' ? out.zonal : kind === 'regions' ? out.regional : undefined;
          if (!target || !where) continue;
          for (const g of v.instanceGroups ?? []) target.set(g.name, [...(target.get(g.name) ?? []), where]);
        }
        if (!r.nextPageToken) break;
        pageToken = r.nextPageToken;
      }
      return out;
    });
  }

  /** Whether an instance (by selfLink) is a member of a zonal or regional group. */
  groupContains(project: string, scope: { zone: string } | { region: string }, group: string, instanceSelfLink: string): Promise<boolean> {
    const where = 'zone' in scope ? `zones/${encodeURIComponent(scope.zone)}` : `regions/${encodeURIComponent(scope.region)}`;
    const url = `${this.base.compute}/projects/${encodeURIComponent(project)}/${where}/instanceGroups/${encodeURIComponent(group)}/listInstances?${new URLSearchParams({ filter: `instance eq ${instanceSelfLink}` })}`;
    return this.cached(`member:${url}`, async () => {
      const r = await this.authed<{ items?: unknown[] }>('POST', url, {});
      return (r.items ?? []).length > 0;
    });
  }

  /** Resource Manager getAncestry: from the project upwards. */
  ancestry(projectId: string): Promise<{ type: string; id: string }[]> {
    return this.cached(`anc:${projectId}`, async () => {
      const r = await this.authed<{ ancestor?: { resourceId?: { type?: string; id?: string } }[] }>(
        'POST',
        `${this.base.crm}/v1/projects/${encodeURIComponent(projectId)}:getAncestry`,
        {},
      );
      return (r.ancestor ?? []).map((a) => ({ type: String(a.resourceId?.type ?? ''), id: String(a.resourceId?.id ?? '') }));
    });
  }
}
