// The namespace registry: root plus child namespaces ("team/", "team/dev/"), kept in memory and
// persisted under sys/namespaces/. Resolves which namespace a request addresses.

import { randomBytes } from 'node:crypto';
import type { NamespaceRef } from '../backend';
import type { JsonStore } from '../storage/json-store';
import { Errors } from '../../schema/errors';

export const ROOT_NAMESPACE: NamespaceRef = { id: 'root', path: '' };
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

export class Namespaces {
  private byPath = new Map<string, NamespaceRecord>();

  constructor(private readonly store: JsonStore) {}

  async load(): Promise<void> {
    this.byPath.clear();
    for (const key of await this.store.list()) {
      const rec = await this.store.get<NamespaceRecord>(key);
      if (rec) this.byPath.set(rec.path, rec);
    }
  }

  get(path: string): NamespaceRef | undefined {
    const p = normalizeNamespacePath(path);
    return p === '' ? ROOT_NAMESPACE : this.byPath.get(p);
  }

  byId(id: string): NamespaceRef | undefined {
    if (id === ROOT_NAMESPACE.id) return ROOT_NAMESPACE;
    for (const r of this.byPath.values()) if (r.id === id) return r;
    return undefined;
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

  async create(parent: NamespaceRef, name: string, customMetadata: Record<string, string>): Promise<NamespaceRecord> {
    const rel = normalizeNamespacePath(name);
    const segments = rel.split('/').filter(Boolean);
    if (segments.length === 0) throw Errors.badRequest('namespace name is required');
    for (const s of segments) {
      if (!/^[A-Za-z0-9_.-]+$/.test(s)) throw Errors.badRequest(`invalid namespace name "${s}": use letters, digits, "_", "-" and "."`);
      if (RESERVED.has(s.toLowerCase())) throw Errors.badRequest(`"${s}" is a reserved path and cannot be used as a namespace name`);
    }
    const full = parent.path + rel;
    const existing = this.byPath.get(full);
    if (existing) return existing;
    const parentOfNew = full.slice(0, full.slice(0, -1).lastIndexOf('/') + 1);
    if (parentOfNew !== '' && !this.byPath.has(parentOfNew)) {
      throw Errors.badRequest(`parent namespace "${parentOfNew}" does not exist; create it first`);
    }
    const rec: NamespaceRecord = { id: randomBytes(3).toString('hex').slice(0, 5), path: full, custom_metadata: customMetadata };
    await this.store.put(full, rec);
    this.byPath.set(full, rec);
    return rec;
  }

  async delete(ns: NamespaceRecord): Promise<void> {
    if (this.children(ns).length > 0) throw Errors.badRequest(`cannot delete namespace "${ns.path}": it contains child namespaces`);
    await this.store.delete(ns.path);
    this.byPath.delete(ns.path);
  }

  /** True when a token of namespace `owner` may act in `target` (same or a descendant). */
  static covers(owner: NamespaceRef, target: NamespaceRef): boolean {
    return target.path.startsWith(owner.path);
  }
}
