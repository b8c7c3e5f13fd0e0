// The namespace registry: root plus child namespaces ("team/", "team/dev/"), kept in memory and
// persisted under sys/namespaces/ with a uniqueness index of ids under sys/namespace-ids/.
// Resolves which namespace a request addresses.

import type { NamespaceRef } from '../route-family';
import type { JsonStore, JsonStoreOp } from '../storage/json-store';
import { Errors } from '../../schema/errors';
import { KeyedLock } from '../keyed-lock';
import { drawNamespaceId } from './namespace-id';

export const ROOT_NAMESPACE: NamespaceRef = { id: 'root', path: '' };
const RECORDS = 'sys/namespaces/';
const IDS = 'sys/namespace-ids/';
const RESERVED = new Set(['root', 'sys', 'audit', 'auth', 'cubbyhole', 'identity']);

export interface NamespaceRecord extends NamespaceRef {
  custom_metadata: Record<string, string>;
}

/** Normalises "a/b", "/a/b/" to "a/b/"; "" stays root. */
export function normalizeNamespacePath(p: string): string {
  if (p === '') return ''; // every request without X-Vault-Namespace
  const trimmed = p.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '' : `${trimmed}/`;
}

/** Thrown at load when two namespaces share an id: their policies, mounts and tokens would mix. */
export class DuplicateNamespaceIdError extends Error {}

export class Namespaces {
  private byPath = new Map<string, NamespaceRecord>();
  private ids = new Map<string, NamespaceRecord>();
  /** Creates and deletes run one at a time: an id is checked free and stored with nothing in between. */
  private readonly lock = new KeyedLock();

  private readonly store: JsonStore;
  /** id -> path, one key per id: the storage key is the uniqueness constraint. */
  private readonly idIndex: JsonStore;

  /** `root`: the root view; records live under sys/namespaces/, the id index under sys/namespace-ids/. */
  constructor(private readonly root: JsonStore) {
    this.store = root.sub(RECORDS);
    this.idIndex = root.sub(IDS);
  }

  /** Loads the registry; refuses a store where two namespaces share an id (or one claims "root"). */
  async load(): Promise<void> {
    const byPath = new Map<string, NamespaceRecord>();
    const ids = new Map<string, NamespaceRecord>();
    for (const key of await this.store.list()) {
      const rec = await this.store.get<NamespaceRecord>(key);
      if (!rec) continue;
      const clash = ids.get(rec.id) ?? (rec.id === ROOT_NAMESPACE.id ? ROOT_NAMESPACE : undefined);
      if (clash) {
        throw new DuplicateNamespaceIdError(
          `namespaces ${JSON.stringify(clash.path || 'root')} and ${JSON.stringify(rec.path)} share the id ${JSON.stringify(rec.id)}: ` +
            'their policies, mounts and tokens cannot be told apart; refusing to start (restore a snapshot from before the clash, or delete one of them with an older keyward)',
        );
      }
      byPath.set(rec.path, rec);
      ids.set(rec.id, rec);
    }
    // Stores written before the index existed get it now; entries of namespaces gone are dropped.
    const indexed = new Set(await this.idIndex.list());
    const ops: JsonStoreOp[] = [];
    for (const [id, rec] of ids) if (!indexed.has(id) || (await this.idIndex.get<string>(id)) !== rec.path) ops.push({ type: 'put', key: id, value: rec.path });
    for (const id of indexed) if (!ids.has(id)) ops.push({ type: 'delete', key: id });
    if (ops.length > 0) await this.idIndex.batch(ops);
    this.byPath = byPath;
    this.ids = ids;
  }

  get(path: string): NamespaceRef | undefined {
    const p = normalizeNamespacePath(path);
    return p === '' ? ROOT_NAMESPACE : this.byPath.get(p);
  }

  byId(id: string): NamespaceRef | undefined {
    return id === ROOT_NAMESPACE.id ? ROOT_NAMESPACE : this.ids.get(id);
  }

  record(path: string): NamespaceRecord | undefined {
    return this.byPath.get(normalizeNamespacePath(path));
  }

  /** Direct children of parent, as names relative to it with a trailing "/". */
  children(parent: NamespaceRef): string[] {
    const out: string[] = [];
    for (const p of this.byPath.keys()) {
      if (!p.startsWith(parent.path)) continue;
      const rest = p.slice(parent.path.length);
      if (rest.split('/').filter(Boolean).length === 1) out.push(rest);
    }
    return out.sort();
  }

  /**
   * Splits a request path into its namespace and the rest: the header selects a base namespace and
   * leading path segments that name child namespaces descend further ("team/sys/auth").
   */
  resolve(headerNamespace: string | undefined, path: string): { namespace: NamespaceRef; path: string } {
    let ns = this.get(headerNamespace ?? '');
    if (!ns) throw Errors.notFound(`namespace "${normalizeNamespacePath(headerNamespace ?? '')}" not found`);
    let rest = path;
    for (;;) {
      const i = rest.indexOf('/');
      if (i <= 0) break;
      const child = this.byPath.get(`${ns.path}${rest.slice(0, i)}/`);
      if (!child) break;
      ns = child;
      rest = rest.slice(i + 1);
    }
    return { namespace: ns, path: rest };
  }

  create(parent: NamespaceRef, name: string, customMetadata: Record<string, string>): Promise<NamespaceRecord> {
    return this.lock.run('registry', () => this.createLocked(parent, name, customMetadata));
  }

  private async createLocked(parent: NamespaceRef, name: string, customMetadata: Record<string, string>): Promise<NamespaceRecord> {
    const rel = normalizeNamespacePath(name);
    const segments = rel.split('/').filter(Boolean);
    if (segments.length === 0) throw Errors.badRequest('namespace name is required');
    for (const s of segments) {
      if (!/^[A-Za-z0-9_.-]+$/.test(s)) throw Errors.badRequest(`invalid namespace name "${s}": use letters, digits, "_", "-" and "."`);
      // "." and ".." would name the namespace itself or its parent in a path.
      if (/^\.+$/.test(s)) throw Errors.badRequest(`invalid namespace name "${s}": a name made only of dots is not allowed`);
      if (RESERVED.has(s.toLowerCase())) throw Errors.badRequest(`"${s}" is a reserved path and cannot be used as a namespace name`);
    }
    const full = parent.path + rel;
    const existing = this.byPath.get(full);
    if (existing) return existing;
    const parentOfNew = full.slice(0, full.slice(0, -1).lastIndexOf('/') + 1);
    if (parentOfNew !== '' && !this.byPath.has(parentOfNew)) {
      throw Errors.badRequest(`parent namespace "${parentOfNew}" does not exist; create it first`);
    }
    let id = drawNamespaceId();
    // Drawn again on a clash (as OpenBao does), checked against the stored index as well.
    while (id === ROOT_NAMESPACE.id || this.ids.has(id) || (await this.idIndex.get(id)) !== undefined) id = drawNamespaceId();
    const rec: NamespaceRecord = { id, path: full, custom_metadata: customMetadata };
    await this.root.batch([
      { type: 'put', key: RECORDS + full, value: rec },
      { type: 'put', key: IDS + id, value: full },
    ]);
    this.byPath.set(full, rec);
    this.ids.set(id, rec);
    return rec;
  }

  delete(ns: NamespaceRecord): Promise<void> {
    return this.lock.run('registry', async () => {
      if (this.children(ns).length > 0) throw Errors.badRequest(`cannot delete namespace "${ns.path}": it contains child namespaces`);
      await this.root.batch([
        { type: 'delete', key: RECORDS + ns.path },
        { type: 'delete', key: IDS + ns.id },
      ]);
      this.byPath.delete(ns.path);
      if (this.ids.get(ns.id) === ns) this.ids.delete(ns.id);
    });
  }

  /** True when a token of namespace `owner` may act in `target` (same or a descendant). */
  static covers(owner: NamespaceRef, target: NamespaceRef): boolean {
    return target.path.startsWith(owner.path);
  }
}
