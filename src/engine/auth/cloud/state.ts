// Per-mount state of the cloud method: stored config and roles (read through a small in-memory
// cache that every write here invalidates, so a login costs no storage read), and the provider
// client built from the config (rebuilt when the config changes, which also drops its caches).

import type { Dispatcher } from 'undici';
import type { Clock } from '../../clock';
import type { JsonStore } from '../../storage/json-store';
import { IdpClient } from '../../../idp-client/client';
import type { StoredCloudConfig } from '../../../schema/cloud-config';
import { DEFAULT_IDENTITY_TOKEN_TTL, usesFederation } from '../../../schema/cloud-config-keyless';
import type { MountInfo, PluginIdentityTokens } from '../../route-family';
import type { StoredRole } from '../../../schema/cloud-role-write';
import { normalizeRoleName } from '../../../schema/cloud-role';
import { ApiError } from '../../../schema/errors';
import { KeyedLock } from '../../keyed-lock';

export const CONFIG_KEY = 'config';
export const ROLE_PREFIX = 'role/';
/** Upper bound on how long a cached config or role is trusted (writes invalidate at once). */
const CACHE_MS = 5_000;

export interface CloudStateOptions {
  clock: Clock;
  env: NodeJS.ProcessEnv;
  /** Injected for tests and benchmarks; a shared keep-alive agent otherwise. */
  dispatcher?: Dispatcher;
  timeoutMs?: number;
  /**
   * Opt-in reuse of provider identity lookups, in ms (default 0: fresh on every login and renewal,
   * as Vault). Also read from KEYWARD_CLOUD_LOOKUP_CACHE_MS. A disabled or deleted service account
   * or a stopped instance may keep logging in and renewing for up to this long.
   */
  lookupCacheMs?: number;
  /** The mount this state belongs to (names it in plugin identity tokens). */
  mount?: MountInfo;
  /** Signs plugin identity tokens (workload identity federation). */
  identityTokens?: PluginIdentityTokens;
}

function lookupCacheMs(o: CloudStateOptions): number {
  if (o.lookupCacheMs !== undefined) return o.lookupCacheMs;
  const v = Number(o.env.KEYWARD_CLOUD_LOOKUP_CACHE_MS ?? 0);
  return Number.isFinite(v) && v > 0 ? v : 0;
}

interface Cached<T> {
  value: T;
  at: number;
}

export class CloudState {
  /** Config writes, root rotations and the mount's close run one at a time (see exclusive()). */
  private readonly configLock = new KeyedLock();
  private closed = false;
  private client?: IdpClient;
  private cachedConfig?: Cached<StoredCloudConfig>;
  private readonly roles = new Map<string, Cached<StoredRole | undefined>>();
  /** Bumped before and after every role write: a listing made while a write ran is not reused. */
  private rolesVersion = 0;
  private listing?: { version: number; result: Promise<unknown> };

  constructor(
    readonly storage: JsonStore,
    private readonly opts: CloudStateOptions,
  ) {}

  private fresh<T>(c: Cached<T> | undefined): boolean {
    if (!c) return false;
    const age = this.opts.clock.now() - c.at;
    return age >= 0 && age < CACHE_MS;
  }

  /**
   * Runs a read-modify-write of the config alone: a write during a rotation waits for it and merges
   * into what it saved, and nothing runs after the mount closed (its storage is being deleted; a
   * late write would leave a key there that nobody can reach or rotate away).
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.configLock.run('config', () => {
      if (this.closed) return Promise.reject(new ApiError('invalid_request', ['the auth mount was disabled while this request waited for it']));
      return fn();
    });
  }

  /** Waits for a running write or rotation to end, then refuses every later one. */
  close(): Promise<void> {
    return this.configLock.run('config', async () => void (this.closed = true));
  }

  /** The longest plugin identity token the engine signs, when it signs any. */
  maxIdentityTokenTtl(): number | undefined {
    return this.opts.identityTokens?.maxTtlSeconds();
  }

  async config(): Promise<StoredCloudConfig> {
    const cached = this.cachedConfig;
    if (cached && this.fresh(cached)) return cached.value;
    const value = (await this.storage.get<StoredCloudConfig>(CONFIG_KEY)) ?? {};
    const changed = JSON.stringify(value) !== JSON.stringify(cached?.value ?? null);
    if (changed) this.client = undefined;
    this.cachedConfig = { value, at: this.opts.clock.now() };
    return value;
  }

  async saveConfig(c: StoredCloudConfig): Promise<void> {
    await this.storage.put(CONFIG_KEY, c);
    this.cachedConfig = { value: c, at: this.opts.clock.now() };
    this.client = undefined;
  }

  async role(name: string): Promise<StoredRole | undefined> {
    const key = normalizeRoleName(name);
    const hit = this.roles.get(key);
    if (hit && this.fresh(hit)) return hit.value;
    const value = await this.storage.get<StoredRole>(ROLE_PREFIX + key);
    if (this.roles.size > 10_000) this.roles.clear();
    this.roles.set(key, { value, at: this.opts.clock.now() });
    return value;
  }

  async saveRole(name: string, role: StoredRole): Promise<void> {
    const key = normalizeRoleName(name);
    this.roles.delete(key);
    this.rolesVersion++;
    try {
      await this.storage.put(ROLE_PREFIX + key, role);
    } finally {
      this.rolesVersion++;
    }
    this.roles.set(key, { value: role, at: this.opts.clock.now() });
  }

  async deleteRole(name: string): Promise<void> {
    const key = normalizeRoleName(name);
    this.roles.delete(key);
    this.rolesVersion++;
    try {
      await this.storage.delete(ROLE_PREFIX + key);
    } finally {
      this.rolesVersion++;
    }
    this.roles.set(key, { value: undefined, at: this.opts.clock.now() });
  }

  async roleNames(): Promise<string[]> {
    return (await this.storage.list(ROLE_PREFIX)).filter((k) => !k.includes('/'));
  }

  /** Every stored role, read straight from storage (a LIST of 10,000 roles must not churn the login cache). */
  async allRoles(): Promise<Map<string, StoredRole>> {
    const out = new Map<string, StoredRole>();
    for (const name of await this.roleNames()) {
      const role = await this.storage.get<StoredRole>(ROLE_PREFIX + name);
      if (role) out.set(name, role);
    }
    return out;
  }

  /**
   * Every role shaped by `shape`, made once per change of the roles: concurrent and repeated LISTs
   * share one read of every role instead of each reading and shaping thousands (which starved
   * every other request). The result is shared: callers must not change it.
   */
  roleListing<T>(shape: (roles: Map<string, StoredRole>) => T): Promise<T> {
    const version = this.rolesVersion;
    if (this.listing?.version !== version) {
      const result = this.allRoles().then(shape);
      const entry = { version, result };
      this.listing = entry;
      result.catch(() => {
        if (this.listing === entry) this.listing = undefined;
      });
    }
    return this.listing!.result as Promise<T>;
  }

  /** The provider client for the current config (call config() first); rebuilt when it changed. */
  clientFor(c: StoredCloudConfig): IdpClient {
    this.client ??= new IdpClient({
      endpoints: c.custom_endpoint,
      credentials: c.credentials,
      federation: usesFederation(c)
        ? {
            audience: c.identity_token_audience!,
            serviceAccountEmail: c.service_account_email!,
            ttlSeconds: c.identity_token_ttl ?? DEFAULT_IDENTITY_TOKEN_TTL,
            subjectToken: (audience, ttl) => {
              const { identityTokens, mount } = this.opts;
              if (!identityTokens || !mount) return Promise.reject(new Error('plugin identity tokens are not available on this engine'));
              return identityTokens.sign(mount, audience, ttl);
            },
          }
        : undefined,
      env: this.opts.env,
      clock: this.opts.clock,
      dispatcher: this.opts.dispatcher,
      timeoutMs: this.opts.timeoutMs,
      lookupCacheMs: lookupCacheMs(this.opts),
    });
    return this.client;
  }
}
