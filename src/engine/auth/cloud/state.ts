// Per-mount state of the cloud method: stored config and roles, and the provider client built from
// the config (rebuilt when the config changes, which also drops its caches).

import type { Dispatcher } from 'undici';
import type { Clock } from '../../clock';
import type { JsonStore } from '../../storage/json-store';
import { CloudProviderClient } from '../../../provider/client';
import type { StoredCloudConfig } from '../../../schema/cloud-config';
import type { StoredRole } from '../../../schema/cloud-role-write';
import { normalizeRoleName } from '../../../schema/cloud-role';

export const CONFIG_KEY = 'config';
export const ROLE_PREFIX = 'role/';

export interface CloudStateOptions {
  clock: Clock;
  env: NodeJS.ProcessEnv;
  /** Injected for tests and benchmarks; a shared keep-alive agent otherwise. */
  dispatcher?: Dispatcher;
  timeoutMs?: number;
}

export class CloudState {
  private client?: { fingerprint: string; client: CloudProviderClient };

  constructor(
    readonly storage: JsonStore,
    private readonly opts: CloudStateOptions,
  ) {}

  async config(storage: JsonStore = this.storage): Promise<StoredCloudConfig> {
    return (await storage.get<StoredCloudConfig>(CONFIG_KEY)) ?? {};
  }

  async saveConfig(c: StoredCloudConfig, storage: JsonStore = this.storage): Promise<void> {
    await storage.put(CONFIG_KEY, c);
    this.client = undefined;
  }

  async role(name: string, storage: JsonStore = this.storage): Promise<StoredRole | undefined> {
    return storage.get<StoredRole>(ROLE_PREFIX + normalizeRoleName(name));
  }

  /** The provider client for a config; the same instance (and caches) while the config is unchanged. */
  clientFor(c: StoredCloudConfig): CloudProviderClient {
    const fingerprint = JSON.stringify([c.credentials ?? null, c.custom_endpoint ?? {}]);
    if (this.client?.fingerprint !== fingerprint) {
      this.client = {
        fingerprint,
        client: new CloudProviderClient({
          endpoints: c.custom_endpoint,
          credentials: c.credentials,
          env: this.opts.env,
          clock: this.opts.clock,
          dispatcher: this.opts.dispatcher,
          timeoutMs: this.opts.timeoutMs,
        }),
      };
    }
    return this.client.client;
  }
}
