// Route patterns compiled to anchored regular expressions; first match in table order wins, so
// tables list specific routes before general ones.

import type { Route } from '../backend';

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
      names.push(seg.slice(1));
      return NAME;
    }
    return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  const source = `^${parts.join('/')}${optionalSlash ? '/?' : ''}$`;
  return { route, regex: new RegExp(source), names };
}

export class RouteTable {
  private readonly compiled: CompiledRoute[];

  constructor(routes: Route[]) {
    this.compiled = routes.map(compileRoute);
  }

  match(path: string): { route: Route; params: Record<string, string> } | undefined {
    for (const c of this.compiled) {
      const m = c.regex.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      c.names.forEach((n, i) => (params[n] = decodeURIComponent(m[i + 1])));
      return { route: c.route, params };
    }
    return undefined;
  }
}
