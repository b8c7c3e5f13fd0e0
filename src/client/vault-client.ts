// Generic Vault operations on top of the HTTP core (read, list, write, delete with Vault's 404
// conventions), the server dialect (detected once from sys/health unless set), and the entry point
// to the typed endpoint groups.

import type { Dispatcher } from 'undici';
import { HttpClient, type ClientHooks, type Envelope, type RequestOptions } from './http';
import type { ClientSettings, ServerDialect } from './options';
import { VaultClientError } from './errors';
import { SysAuthApi } from './sys-auth';
import { CloudAuthApi } from './cloud-auth';
import { SnapshotApi } from './snapshots';
import { EditionError, HEALTH_STATUSES, editionName, serverInfoFromHealth, translatorFor, type ServerInfo, type Translator } from './dialect';

/** Encodes each segment of a name that goes into a path. */
export const seg = (s: string) => encodeURIComponent(s);

export class VaultClient extends HttpClient {
  readonly sys: SysAuthApi;
  readonly snapshots: SnapshotApi;
  /** The snapshot agent's client when snapshot configs go to one (settings.snapshotAddress). */
  private readonly snapshotClient?: VaultClient;
  private readonly configuredDialect?: ServerDialect;
  private readonly cloudPlugin?: string;
  private info?: Promise<ServerInfo>;
  private enterpriseChecked?: Promise<void>;

  constructor(settings: ClientSettings, hooks: ClientHooks = {}, dispatcher?: Dispatcher) {
    super(settings, hooks, dispatcher);
    this.configuredDialect = settings.dialect;
    this.cloudPlugin = settings.cloudPlugin;
    if (settings.dialect) this.errorTexts = (e) => translatorFor(settings.dialect!).errorsFromServer(e);
    this.sys = new SysAuthApi(this);
    if (settings.snapshotAddress) this.snapshotClient = new VaultClient({ ...settings, address: settings.snapshotAddress, snapshotAddress: undefined }, hooks);
    this.snapshots = this.snapshotClient ? new SnapshotApi(this.snapshotClient, () => this.sameClusterAsAgent()) : new SnapshotApi(this);
  }

  private agentChecked?: Promise<void>;

  /**
   * Snapshot configs sent to an agent that manages another cluster would back up the wrong server:
   * refused when both report a cluster_id and they differ. Unreadable health is left to the
   * requests themselves to report.
   */
  private sameClusterAsAgent(): Promise<void> {
    this.agentChecked ??= (async () => {
      const agent = this.snapshotClient!;
      let mine: ServerInfo;
      let theirs: ServerInfo;
      try {
        [mine, theirs] = await Promise.all([this.serverInfo(), agent.serverInfo()]);
      } catch {
        return;
      }
      if (!theirs.snapshotAgent || !mine.clusterId || !theirs.clusterId || mine.clusterId === theirs.clusterId) return;
      throw new Error(
        `snapshot configs go to the keyward snapshot agent at ${agent.address}, which manages another cluster (cluster_id ${theirs.clusterId}) than ${this.address} (cluster_id ${mine.clusterId}): its snapshots would not be of this server. ` +
          `Point the snapshot address (--snapshot-address, snapshotAddress, snapshot_address, KEYWARD_SNAPSHOT_ADDR) at an agent started with --server ${this.address}`,
      );
    })();
    return this.agentChecked;
  }

  /** Where snapshot configs are read and written (the agent's address, or this server's). */
  get snapshotAddress(): string {
    return (this.snapshotClient ?? this).address;
  }

  override async close(): Promise<void> {
    await this.snapshotClient?.close();
    await super.close();
  }

  /** The cloud auth method mounted at `mount` (e.g. "cloud"). */
  cloud(mount: string): CloudAuthApi {
    return new CloudAuthApi(this, mount);
  }

  /** sys/health, read once: version, edition, and the detected dialect. */
  serverInfo(): Promise<ServerInfo> {
    this.info ??= (async () => {
      const res = await this.request('GET', 'sys/health', undefined, { allow: HEALTH_STATUSES, rootNamespace: true });
      return serverInfoFromHealth(res.body, this.address);
    })();
    return this.info;
  }

  /** The dialect in use: the configured one, else detected from sys/health. */
  async dialect(): Promise<ServerDialect> {
    if (this.configuredDialect) return this.configuredDialect;
    const d = (await this.serverInfo()).dialect;
    this.errorTexts = (e) => translatorFor(d).errorsFromServer(e);
    return d;
  }

  /** The translator for the dialect in use (the typed endpoint groups call this first). */
  async translator(): Promise<Translator> {
    return translatorFor(await this.dialect(), { cloudPlugin: this.cloudPlugin });
  }

  /**
   * Refuses an Enterprise-only feature on a server that is not Enterprise, with an error naming the
   * edition (instead of Vault's bare 404 "unsupported path"). Vault dialect only: the keyward engine
   * reports its own edition errors.
   */
  requireEnterprise(feature: string): Promise<void> {
    this.enterpriseChecked ??= (async () => {
      let info: ServerInfo;
      try {
        info = await this.serverInfo();
      } catch (e) {
        // A server that does not answer stays an error (a second request would wait as long again).
        if (VaultClientError.is(e) && e.status === 0) throw e;
        info = { dialect: 'vault', version: 'of unknown version' };
      }
      if (info.enterprise) return;
      // A licensed server answers sys/license/status; community builds do not have the path.
      const res = await this.request('GET', 'sys/license/status', undefined, { allow: [403, 404, 405], rootNamespace: true });
      if (res.status === 404 || res.status === 405) throw new EditionError(feature, editionName(info), this.address);
    })();
    return this.enterpriseChecked;
  }

  /**
   * Refuses automated snapshots where the server lacks them, before anything is planned: a
   * keyward snapshot agent serves them for any server; the engine says its edition in sys/health;
   * Vault needs Enterprise (requireEnterprise). A server whose health cannot be read is left to
   * answer the request itself.
   */
  async requireSnapshotAuto(feature: string): Promise<void> {
    const dialect = await this.dialect();
    let info: ServerInfo | undefined;
    try {
      info = await this.serverInfo();
    } catch (e) {
      if (dialect === 'vault') return this.requireEnterprise(feature);
      if (VaultClientError.is(e) && e.status === 0) throw e;
      return;
    }
    if (info.snapshotAgent) return;
    if (info.dialect === 'keyward' && dialect === 'keyward') {
      if (info.enterprise === false) throw new EditionError(feature, editionName(info), this.address, 'it reports enterprise: false in sys/health');
      return;
    }
    return this.requireEnterprise(feature);
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
    return (await this.listWithInfo(path, opts)).keys;
  }

  /** LIST with the response's key_info (per-key data some endpoints send; {} when absent). */
  async listWithInfo(path: string, opts: RequestOptions = {}): Promise<{ keys: string[]; keyInfo: Record<string, unknown> }> {
    const res = await this.request('GET', `${path.replace(/\/+$/, '')}/?list=true`, undefined, { ...opts, allow: [404] });
    if (res.status === 404) return { keys: [], keyInfo: {} };
    const data = (res.body as Envelope<{ keys?: unknown; key_info?: unknown }> | undefined)?.data;
    const keys = Array.isArray(data?.keys) ? data.keys.map(String).sort() : [];
    const info = data?.key_info;
    return { keys, keyInfo: info && typeof info === 'object' && !Array.isArray(info) ? (info as Record<string, unknown>) : {} };
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
