// Compiles a token's policies into an ACL and answers the two questions the engine asks: which
// capabilities the token has on a path (sys/capabilities-self) and whether an operation is allowed.

import type { Capability, Policy, PolicyRule } from './hcl';
import { ROOT_POLICY_NAME } from './default-policy';

export type AclOperation = 'read' | 'list' | 'create' | 'update' | 'delete';

/** Capabilities of one path after merging every policy's rule for that exact path string. */
interface Permissions {
  caps: Set<Capability>;
}

/** A segment-wildcard ("+") rule, pre-split so matching does not re-parse it per request. */
interface SegmentRule {
  /** Without the trailing "*": what the length and lexicographic tie-breaks compare. */
  base: string;
  parts: string[];
  isPrefix: boolean;
  firstWildcard: number;
  wildcards: number;
  perms: Permissions;
}

/** One candidate for Vault's priority order; the highest wins. */
export interface Candidate {
  firstWildcard: number;
  isPrefix: boolean;
  wildcards: number;
  path: string;
  perms: Permissions;
}

/**
 * Vault's `less` from CheckAllowedFromNonExactPaths: negative when `a` is lower priority than `b`.
 * P1 is lower than P2 if its first "+" or "*" occurs earlier; else if it ends in "*" and P2 does not;
 * else if it has more "+" segments; else if it is shorter; else if it is lexicographically smaller.
 */
export function comparePriority(a: Candidate, b: Candidate): number {
  if (a.firstWildcard !== b.firstWildcard) return a.firstWildcard < b.firstWildcard ? -1 : 1;
  if (a.isPrefix !== b.isPrefix) return a.isPrefix ? -1 : 1;
  if (a.wildcards !== b.wildcards) return a.wildcards > b.wildcards ? -1 : 1;
  if (a.path.length !== b.path.length) return a.path.length < b.path.length ? -1 : 1;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/** Merges `rule` into `map[key]`: union of capabilities, but a "deny" anywhere clears the rest for good. */
function merge(map: Map<string, Permissions>, key: string, rule: PolicyRule): Permissions {
  const existing = map.get(key);
  if (!existing) {
    const perms = { caps: new Set(rule.capabilities) };
    map.set(key, perms);
    return perms;
  }
  if (existing.caps.has('deny')) return existing;
  if (rule.capabilities.has('deny')) existing.caps = new Set<Capability>(['deny']);
  else rule.capabilities.forEach((c) => existing.caps.add(c));
  return existing;
}

export interface ResultantAcl {
  root: boolean;
  exact_paths: Record<string, { capabilities: string[] }>;
  glob_paths: Record<string, { capabilities: string[] }>;
}

export class Acl {
  private readonly exact = new Map<string, Permissions>();
  /** Prefix rules keyed by the path without its trailing "*". */
  private readonly prefix = new Map<string, Permissions>();
  private readonly segmentPerms = new Map<string, Permissions>();
  private readonly segment = new Map<string, SegmentRule>();
  readonly isRoot: boolean;

  /** The built-in `root` policy makes the ACL allow everything, whatever else is present. */
  constructor(policies: readonly Policy[]) {
    this.isRoot = policies.some((p) => p.name === ROOT_POLICY_NAME);
    if (this.isRoot) return;
    for (const policy of policies) {
      for (const rule of policy.rules) {
        if (rule.hasSegmentWildcard) this.addSegmentRule(rule);
        else if (rule.isPrefix) merge(this.prefix, rule.path.slice(0, -1), rule);
        else merge(this.exact, rule.path, rule);
      }
    }
  }

  private addSegmentRule(rule: PolicyRule): void {
    const perms = merge(this.segmentPerms, rule.path, rule);
    if (this.segment.has(rule.path)) return;
    const base = rule.isPrefix ? rule.path.slice(0, -1) : rule.path;
    const parts = base.split('/');
    const wildcards = parts.filter((p) => p === '+').length;
    this.segment.set(rule.path, { base, parts, isPrefix: rule.isPrefix, firstWildcard: rule.path.indexOf('+'), wildcards, perms });
  }

  /** The rule that governs `path`, following Vault's AllowOperation lookup order. */
  private lookup(path: string, isList: boolean): Permissions | undefined {
    const p = path.replace(/^\/+/, '');
    const exact = this.exact.get(p) ?? (isList ? this.exact.get(p.replace(/\/$/, '')) : undefined);
    if (exact) return exact;
    // LIST paths end in "/": try without it first, since a glob may match the bare name.
    if (isList && p.endsWith('/')) {
      const bare = this.nonExact(p.slice(0, -1));
      if (bare) return bare;
    }
    return this.nonExact(p);
  }

  /** Longest matching prefix rule plus every matching "+" rule; the highest priority wins. */
  private nonExact(path: string): Permissions | undefined {
    const candidates: Candidate[] = [];
    let longest: string | undefined;
    for (const key of this.prefix.keys()) {
      if (path.startsWith(key) && (longest === undefined || key.length > longest.length)) longest = key;
    }
    if (longest !== undefined) {
      const perms = this.prefix.get(longest)!;
      candidates.push({ firstWildcard: longest.length, isPrefix: true, wildcards: 0, path: longest, perms });
    }
    const parts = path.split('/');
    for (const rule of this.segment.values()) {
      if (this.segmentMatches(rule, parts)) {
        candidates.push({ firstWildcard: rule.firstWildcard, isPrefix: rule.isPrefix, wildcards: rule.wildcards, path: rule.base, perms: rule.perms });
      }
    }
    if (candidates.length === 0) return undefined;
    return candidates.reduce((best, c) => (comparePriority(c, best) > 0 ? c : best)).perms;
  }

  /** "+" matches exactly one segment; a trailing "*" makes the last segment a prefix and allows more segments. */
  private segmentMatches(rule: SegmentRule, parts: string[]): boolean {
    if (parts.length < rule.parts.length) return false;
    if (!rule.isPrefix && parts.length !== rule.parts.length) return false;
    const last = rule.parts.length - 1;
    return rule.parts.every((seg, i) => seg === '+' || seg === parts[i] || (rule.isPrefix && i === last && parts[i].startsWith(seg)));
  }

  /** Vault's sys/capabilities-self answer for a namespace-qualified path: sorted, ["deny"] when none, ["root"] for root. */
  capabilities(path: string): string[] {
    if (this.isRoot) return ['root'];
    // Vault evaluates capabilities as a LIST so the trailing-slash fallbacks apply.
    const perms = this.lookup(path, true);
    if (!perms || perms.caps.size === 0 || perms.caps.has('deny')) return ['deny'];
    return [...perms.caps].sort();
  }

  /**
   * Whether `operation` on `path` is allowed. `sudo` marks routes that also need the sudo
   * capability (Vault's root-protected paths). LIST paths carry their trailing "/".
   */
  allows(operation: AclOperation, path: string, options: { sudo: boolean } = { sudo: false }): boolean {
    if (this.isRoot) return true;
    const perms = this.lookup(path, operation === 'list');
    if (!perms || perms.caps.has('deny')) return false;
    if (!perms.caps.has(operation)) return false;
    return !options.sudo || perms.caps.has('sudo');
  }

  /** The merged rules, shaped like Vault's sys/internal/ui/resultant-acl data. */
  resultant(): ResultantAcl {
    const shape = (perms: Permissions): { capabilities: string[] } => ({
      capabilities: perms.caps.has('deny') || perms.caps.size === 0 ? ['deny'] : [...perms.caps].sort(),
    });
    const exact: ResultantAcl['exact_paths'] = {};
    const glob: ResultantAcl['glob_paths'] = {};
    if (this.isRoot) return { root: true, exact_paths: exact, glob_paths: glob };
    for (const [k, v] of this.exact) exact[k] = shape(v);
    for (const [k, v] of this.prefix) glob[k] = shape(v);
    for (const [k, v] of this.segment) glob[k] = shape(v.perms);
    return { root: false, exact_paths: exact, glob_paths: glob };
  }
}

/** Compiles policies (already parsed, `root` recognised by name) into an ACL. */
export function compileAcl(policies: readonly Policy[]): Acl {
  return new Acl(policies);
}
