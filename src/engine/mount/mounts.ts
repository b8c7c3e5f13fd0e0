// The auth mount table of every namespace, with a live auth method per mount. Each mount's data lives
// under its own storage prefix, removed when the mount is disabled.

import { randomBytes, randomUUID } from 'node:crypto';
import type { AuthMethod, AuthMethodFactory, AuthMethodServices, MountInfo, NamespaceRef } from '../route-family';
import type { Clock } from '../clock';
import type { Logger } from '../log';
import type { JsonStore } from '../storage/json-store';
import { Errors } from '../../schema/errors';
import { applyTune, defaultTune, type MountTune } from './mount-tune';

export interface MountEntry {
  /** With a trailing slash: "cloud/", "team/a/". */
  path: string;
  type: string;
  description: string;
  accessor: string;
  uuid: string;
  namespaceId: string;
  /** Not replicated to other clusters (Vault's `local`); set at enable time only. Absent in older stores = false. */
  local?: boolean;
  /** Tune settings; absent in older stores = the defaults. */
  config?: MountTune;
}

/** A mount's tune settings, with the defaults for entries stored before they existed. */
export const tuneOf = (e: MountEntry): MountTune => ({ ...defaultTune(), ...e.config });

export interface EnableOptions {
  description?: string;
  local?: boolean;
  /** Tune-style settings at enable time (Vault's `config` block). */
  config?: Record<string, unknown>;
}

export interface LiveMount {
  entry: MountEntry;
  info: MountInfo;
  method: AuthMethod;
  storage: JsonStore;
}

export function normalizeMountPath(p: string): string {
  const t = p.replace(/^\/+|\/+$/g, '');
  return t === '' ? '' : `${t}/`;
}

export class Mounts {
  private byNamespace = new Map<string, LiveMount[]>();
  private byAccessor = new Map<string, LiveMount>();
  /** Engine services handed to every auth method created from now on (plugin identity tokens). */
  services: AuthMethodServices = {};

  constructor(
    private readonly root: JsonStore,
    private readonly factories: AuthMethodFactory[],
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly namespaceById: (id: string) => NamespaceRef | undefined,
    /** Cleanup elsewhere (identity aliases) when a mount goes away. */
    private readonly onDisable: (entry: MountEntry) => Promise<void> = async () => {},
  ) {}

  private tableKey(nsId: string) {
    return `core/auth-mounts/${nsId}`;
  }

  mountStorage(entry: MountEntry): JsonStore {
    return this.root.sub(`ns/${entry.namespaceId}/auth/${entry.uuid}/`);
  }

  async load(namespaceIds: string[]): Promise<void> {
    await this.closeAll();
    for (const nsId of namespaceIds) {
      const table = (await this.root.get<MountEntry[]>(this.tableKey(nsId))) ?? [];
      for (const entry of table) this.activate(entry);
    }
  }

  private activate(entry: MountEntry): LiveMount {
    const factory = this.factories.find((f) => f.type === entry.type);
    if (!factory) throw new Error(`no auth method of type ${entry.type} is available`);
    const namespace = this.namespaceById(entry.namespaceId) ?? { id: entry.namespaceId, path: '' };
    const info: MountInfo = { path: entry.path.slice(0, -1), accessor: entry.accessor, type: entry.type, namespace, tune: () => tuneOf(entry) };
    const storage = this.mountStorage(entry);
    const method = factory.create({ ...this.services, storage, clock: this.clock, log: this.log, mount: info, env: process.env });
    const live: LiveMount = { entry, info, method, storage };
    const list = this.byNamespace.get(entry.namespaceId) ?? [];
    list.push(live);
    list.sort((a, b) => b.entry.path.length - a.entry.path.length); // longest prefix first
    this.byNamespace.set(entry.namespaceId, list);
    this.byAccessor.set(entry.accessor, live);
    return live;
  }

  list(ns: NamespaceRef): MountEntry[] {
    return (this.byNamespace.get(ns.id) ?? []).map((m) => m.entry).sort((a, b) => (a.path < b.path ? -1 : 1));
  }

  /** The mount that serves `rest` (the path after "auth/"), and the path relative to it. */
  find(ns: NamespaceRef, rest: string): { mount: LiveMount; path: string } | undefined {
    for (const m of this.byNamespace.get(ns.id) ?? []) {
      if (rest.startsWith(m.entry.path)) return { mount: m, path: rest.slice(m.entry.path.length) };
      if (rest === m.entry.path.slice(0, -1)) return { mount: m, path: '' };
    }
    return undefined;
  }

  byAccessorId(accessor: string): LiveMount | undefined {
    return this.byAccessor.get(accessor);
  }

  typeAvailable(type: string): boolean {
    return this.factories.some((f) => f.type === type);
  }

  /** A free path for a new or moved mount: valid, not the token method's, not overlapping another. */
  private checkFreePath(ns: NamespaceRef, path: string, except?: MountEntry): string {
    const p = normalizeMountPath(path);
    if (p === '') throw Errors.badRequest('mount path is required');
    if (!/^[\w.-]+(\/[\w.-]+)*\/$/.test(p)) throw Errors.badRequest(`invalid mount path "${path}": use letters, digits, "_", "-", "." and "/"`);
    if (p === 'token/' || p.startsWith('token/')) throw Errors.badRequest(`path is already in use at token/`);
    for (const m of this.list(ns)) {
      if (m === except) continue;
      if (m.path === p || p.startsWith(m.path) || m.path.startsWith(p)) throw Errors.badRequest(`path is already in use at ${m.path}`);
    }
    return p;
  }

  async enable(ns: NamespaceRef, path: string, type: string, options: EnableOptions = {}): Promise<MountEntry> {
    const p = this.checkFreePath(ns, path);
    if (!type) throw Errors.badRequest('the "type" field is required (for example "cloud")');
    if (!this.typeAvailable(type)) {
      throw Errors.badRequest(`unknown auth method type "${type}"; available: ${['token', ...this.factories.map((f) => f.type)].join(', ')}`);
    }
    const entry: MountEntry = {
      path: p,
      type,
      description: options.description ?? '',
      accessor: `auth_${type}_${randomBytes(4).toString('hex')}`,
      uuid: randomUUID(),
      namespaceId: ns.id,
      local: options.local ?? false,
      config: applyTune(defaultTune(), options.config ?? {}),
    };
    await this.root.put(this.tableKey(ns.id), [...this.list(ns), entry]);
    this.activate(entry);
    return entry;
  }

  /** Description and tune settings (only the fields given change). */
  async tune(ns: NamespaceRef, path: string, input: { description?: string } & Record<string, unknown>): Promise<void> {
    const p = normalizeMountPath(path);
    const live = (this.byNamespace.get(ns.id) ?? []).find((m) => m.entry.path === p);
    if (!live) throw Errors.badRequest(`no auth mount at ${p}`);
    const config = applyTune(tuneOf(live.entry), input);
    const description = input.description ?? live.entry.description;
    await this.root.put(
      this.tableKey(ns.id),
      this.list(ns).map((m) => (m === live.entry ? { ...m, description, config } : m)),
    );
    live.entry.description = description;
    live.entry.config = config;
  }

  /**
   * Moves a mount to a new path (Vault's sys/remount): same uuid (so the same data: config, roles),
   * same accessor. Only the path changes; the route revokes the tokens issued through the mount.
   */
  async remount(ns: NamespaceRef, from: string, to: string): Promise<MountEntry> {
    const src = normalizeMountPath(from);
    const live = (this.byNamespace.get(ns.id) ?? []).find((m) => m.entry.path === src);
    if (!live) throw Errors.badRequest(`no auth mount at auth/${src}`);
    const dst = this.checkFreePath(ns, to, live.entry);
    if (dst === src) throw Errors.badRequest(`the mount is already at auth/${dst}`);
    const moved: MountEntry = { ...live.entry, path: dst };
    await this.root.put(
      this.tableKey(ns.id),
      this.list(ns).map((m) => (m === live.entry ? moved : m)),
    );
    // A fresh auth method for the new path (its MountInfo carries the path into logins' token paths).
    this.byNamespace.set(
      ns.id,
      (this.byNamespace.get(ns.id) ?? []).filter((m) => m !== live),
    );
    this.byAccessor.delete(live.entry.accessor);
    await live.method.close?.();
    this.activate(moved);
    return moved;
  }

  /** Removes the mount and all of its data. Disabling a path that is not mounted is a no-op. */
  async disable(ns: NamespaceRef, path: string): Promise<void> {
    const p = normalizeMountPath(path);
    const live = (this.byNamespace.get(ns.id) ?? []).find((m) => m.entry.path === p);
    if (!live) return;
    await this.root.put(
      this.tableKey(ns.id),
      this.list(ns).filter((m) => m.path !== p),
    );
    this.byNamespace.set(
      ns.id,
      (this.byNamespace.get(ns.id) ?? []).filter((m) => m !== live),
    );
    this.byAccessor.delete(live.entry.accessor);
    await live.method.close?.();
    await live.storage.deletePrefix();
    await this.onDisable(live.entry);
  }

  /** Drops every mount of a namespace (namespace deletion). */
  async disableAll(ns: NamespaceRef): Promise<void> {
    for (const m of this.list(ns)) await this.disable(ns, m.path);
    await this.root.delete(this.tableKey(ns.id));
  }

  async closeAll(): Promise<void> {
    for (const list of this.byNamespace.values()) for (const m of list) await m.method.close?.();
    this.byNamespace.clear();
    this.byAccessor.clear();
  }
}
