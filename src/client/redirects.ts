// Redirects as Vault's Go client follows them (api/client.go): a standby that does not forward
// answers 307 (or 308) with a Location on the active node; the same method and body go there, one
// hop only (Vault's client follows a redirect only while its redirect count is 0), never from https
// to http. Like Vault's client, the target may be another host (the active node); stricter on one
// point: the token goes only to a target of the configured server's scheme, never across schemes.

/** Where the next attempt of a request goes. */
export interface Hop {
  origin: string;
  /** Path and query. */
  path: string;
  /** The target has the configured server's scheme (the token may go there). */
  sameScheme: boolean;
}

export const MAX_REDIRECTS = 1;

/** The next hop for a 307/308 answer, or why it is not followed (the message for the error). */
export function followRedirect(start: URL, current: Hop, location: string | string[] | undefined, redirectsSoFar: number): Hop | { refused: string } {
  const loc = Array.isArray(location) ? location[0] : location;
  if (!loc) return { refused: 'redirect without a Location header' };
  let target: URL;
  try {
    target = new URL(loc, `${current.origin}${current.path}`);
  } catch {
    return { refused: `redirect to an unreadable Location ${JSON.stringify(loc.slice(0, 200))}` };
  }
  const shown = `${target.origin}${target.pathname}`;
  if (redirectsSoFar >= MAX_REDIRECTS) return { refused: `redirected again, to ${shown}: the client follows one redirect, as Vault's does` };
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return { refused: `redirect to ${shown}: not an http(s) URL` };
  const currentScheme = new URL(current.origin).protocol;
  if (currentScheme === 'https:' && target.protocol === 'http:') return { refused: `redirect to ${shown} refused: it would downgrade https to http` };
  return { origin: target.origin, path: `${target.pathname}${target.search}`, sameScheme: target.protocol === start.protocol };
}
