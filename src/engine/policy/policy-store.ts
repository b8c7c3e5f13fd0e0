// ACL policies per namespace: stored as their source text, parsed on write (so a bad policy is
// refused with its parse error), compiled ACLs cached per policy set and dropped on any change.

import type { NamespaceRef } from '../route-family';
import type { JsonStore } from '../storage/json-store';
import { Errors } from '../../schema/errors';
import { Acl, compileAcl } from './acl';
import { parsePolicy, type Policy } from './hcl';
import { DEFAULT_POLICY } from './default-policy';

interface StoredPolicy {
  name: string;
  policy: string;
}

const BUILTIN = new Set(['root', 'default']);

export class PolicyStore {
  private parsed = new Map<string, Policy>();
  private acls = new Map<string, Acl>();

  constructor(private readonly root: JsonStore) {}

  private key(ns: NamespaceRef, name: string) {
    return `ns/${ns.id}/policy/${name}`;
  }

  static normalizeName(name: string): string {
    return name.trim().toLowerCase();
  }

  /** The policy text; `default` is seeded on first read, `root` has no text. */
  async read(ns: NamespaceRef, name: string): Promise<StoredPolicy | undefined> {
    const n = PolicyStore.normalizeName(name);
    if (n === 'root') return { name: 'root', policy: '' };
    const stored = await this.root.get<StoredPolicy>(this.key(ns, n));
    if (stored) return stored;
    if (n === 'default') return { name: 'default', policy: DEFAULT_POLICY };
    return undefined;
  }

  async write(ns: NamespaceRef, name: string, text: string): Promise<void> {
    const n = PolicyStore.normalizeName(name);
    if (n === '') throw Errors.badRequest('policy name is required');
    if (n === 'root') throw Errors.badRequest('cannot update "root" policy');
    if (!/^[\w.@-]+(\/[\w.@-]+)*$/.test(n)) throw Errors.badRequest(`invalid policy name "${name}"`);
    let policy: Policy;
    try {
      policy = parsePolicy(n, text, { namespacePath: '' });
    } catch (e) {
      throw Errors.badRequest((e as Error).message);
    }
    await this.root.put(this.key(ns, n), { name: n, policy: text });
    this.parsed.set(`${ns.id}:${n}`, policy);
    this.acls.clear();
  }

  async delete(ns: NamespaceRef, name: string): Promise<void> {
    const n = PolicyStore.normalizeName(name);
    if (BUILTIN.has(n)) throw Errors.badRequest(`cannot delete "${n}" policy`);
    await this.root.delete(this.key(ns, n));
    this.parsed.delete(`${ns.id}:${n}`);
    this.acls.clear();
  }

  async list(ns: NamespaceRef): Promise<string[]> {
    const names = new Set(await this.root.list(`ns/${ns.id}/policy/`));
    names.add('default');
    if (ns.id === 'root') names.add('root');
    return [...names].sort();
  }

  private async load(ns: NamespaceRef, name: string): Promise<Policy | undefined> {
    const cacheKey = `${ns.id}:${name}`;
    const hit = this.parsed.get(cacheKey);
    if (hit) return hit;
    if (name === 'root') return { name: 'root', rules: [] };
    const stored = await this.read(ns, name);
    if (!stored) return undefined;
    const policy = parsePolicy(name, stored.policy, { namespacePath: '' });
    this.parsed.set(cacheKey, policy);
    return policy;
  }

  /** The compiled ACL for a token's policies, evaluated in the token's namespace. */
  async acl(ns: NamespaceRef, policies: string[]): Promise<Acl> {
    const key = `${ns.id}:${[...policies].sort().join(',')}`;
    const hit = this.acls.get(key);
    if (hit) return hit;
    const loaded: Policy[] = [];
    for (const name of policies) {
      if (name === 'root' && ns.id !== 'root') continue; // root is only a root-namespace policy
      const p = await this.load(ns, name);
      if (p) loaded.push(p);
    }
    const acl = compileAcl(loaded);
    this.acls.set(key, acl);
    return acl;
  }

  clearCache(): void {
    this.parsed.clear();
    this.acls.clear();
  }
}
