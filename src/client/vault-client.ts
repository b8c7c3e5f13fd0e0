// Generic Vault operations on top of the HTTP core (read, list, write, delete with Vault's 404
// conventions) and the entry point to the typed endpoint groups.

import type { Dispatcher } from 'undici';
import { HttpClient, type ClientHooks, type Envelope, type RequestOptions } from './http';
import type { ClientSettings } from './options';
import { SysAuthApi } from './sys-auth';
import { CloudAuthApi } from './cloud-auth';
import { SnapshotApi } from './snapshots';

/** Encodes each segment of a name that goes into a path. */
export const seg = (s: string) => encodeURIComponent(s);

export class VaultClient extends HttpClient {
  readonly sys: SysAuthApi;
  readonly snapshots: SnapshotApi;

  constructor(settings: ClientSettings, hooks: ClientHooks = {}, dispatcher?: Dispatcher) {
    super(settings, hooks, dispatcher);
    this.sys = new SysAuthApi(this);
    this.snapshots = new SnapshotApi(this);
  }

  /** The cloud auth method mounted at `mount` (e.g. "cloud"). */
  cloud(mount: string): CloudAuthApi {
    return new CloudAuthApi(this, mount);
  }

  /** GET; a 404 is "absent" (undefined). */
  async read<T = Record<string, unknown>>(path: string, opts: RequestOptions = {}): Promise<T | undefined> {
    const res = await this.request('GET', path, undefined, { ...opts, allow: [404] });
    if (res.status === 404) return undefined;
    return ((res.body as Envelope<T> | undefined)?.data ?? undefined) as T | undefined;
  }

  /**
   * LIST, sent as `GET ?list=true` (equivalent in Vault; proxies and HTTP parsers often reject the
   * LIST verb). Vault answers 404 for an empty list. Keys sorted.
   */
  async list(path: string, opts: RequestOptions = {}): Promise<string[]> {
    const res = await this.request('GET', `${path.replace(/\/+$/, '')}/?list=true`, undefined, { ...opts, allow: [404] });
    if (res.status === 404) return [];
    const keys = (res.body as Envelope<{ keys?: unknown }> | undefined)?.data?.keys;
    return Array.isArray(keys) ? keys.map(String).sort() : [];
  }

  /** POST; returns the server's warnings (a 204 has none). */
  async write(path: string, body: Record<string, unknown>, opts: RequestOptions = {}): Promise<string[]> {
    const res = await this.request('POST', path, body, opts);
    return ((res.body as Envelope | undefined)?.warnings ?? []) as string[];
  }

  /** DELETE; a 404 counts as done (already absent). */
  async delete(path: string, opts: RequestOptions = {}): Promise<void> {
    await this.request('DELETE', path, undefined, { ...opts, allow: [404] });
  }
}
