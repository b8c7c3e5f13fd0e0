// Route patterns compiled to anchored regular expressions, matched against the canonical (decoded)
// path; first match in table order wins, so tables list specific routes before general ones.

import type { Route } from '../route-family';

/** Vault's rule for a name segment: word characters, '-' and '.', starting and ending with a word char. */
const NAME = '(\\w(?:(?:[\\w\\-.]+)?\\w)?)';

export interface CompiledRoute {
  route: Route;
  regex: RegExp;
  names: string[];
}

export function compileRoute(route: Route): CompiledRoute {
  let pattern = route.pattern;
  let optionalSlash = false;
  if (pattern.endsWith('/?')) {
    optionalSlash = true;
    pattern = pattern.slice(0, -2);
  }
  const names: string[] = [];
  const parts = pattern.split('/').map((seg) => {
    if (seg.startsWith(':')) {
      if (seg.endsWith('*')) {
        names.push(seg.slice(1, -1));
        return '(.+?)';
      }
      // One segment whatever it holds: the handler checks the name and refuses it with a 400
      // naming the rule (a config name), where a pattern miss would be a bare 404.
      if (seg.endsWith('+')) {
        names.push(seg.slice(1, -1));
        return '([^/]+)';
      }
      names.push(seg.slice(1));
      return NAME;
    }
    return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  const source = `^${parts.join('/')}${optionalSlash ? '/?' : ''}$`;
  return { route, regex: new RegExp(source), names };
}

/** The paths a pattern without parameters matches (with and without its optional slash). */
function literalPaths(route: Route): string[] {
  if (route.pattern.includes(':')) return [];
  return route.pattern.endsWith('/?') ? [route.pattern.slice(0, -2), route.pattern.slice(0, -1)] : [route.pattern];
}

export class RouteTable {
  private readonly compiled: CompiledRoute[];
  /**
   * Parameterless paths answered by a map lookup (login and health are hit on every request),
   * each precomputed from the scan itself, so table order still decides.
   */
  private readonly literals = new Map<string, { route: Route; params: Record<string, string> }>();

  constructor(routes: Route[]) {
    this.compiled = routes.map(compileRoute);
    for (const r of routes) {
      for (const path of literalPaths(r)) {
        const m = this.scan(path);
        if (m && !this.literals.has(path)) this.literals.set(path, m);
      }
    }
  }

  match(path: string): { route: Route; params: Record<string, string> } | undefined {
    const literal = this.literals.get(path);
    // A fresh params object per request: handlers own what they are given.
    return literal ? { route: literal.route, params: { ...literal.params } } : this.scan(path);
  }

  private scan(path: string): { route: Route; params: Record<string, string> } | undefined {
    for (const c of this.compiled) {
      const m = c.regex.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      // The path is already decoded (canonical-path.ts): decoding again would let %2570 become "p".
      c.names.forEach((n, i) => (params[n] = m[i + 1]));
      return { route: c.route, params };
    }
    return undefined;
  }
}
