// The one canonical form of a request path, as Vault's Go server makes it: the URL's path is
// percent-decoded once (Go's URL.Path), and a path that is not clean ("//", "/./", "/../", a
// trailing "/." or "/..") is redirected to its cleaned form before any handler runs (Go's
// ServeMux answers 301), so routing, the namespace split and the ACL all see the same string and
// nothing downstream decodes again.

import { posix } from 'node:path';
import { Errors } from '../../schema/errors';

/** decodeURIComponent, with malformed escapes (a lone "%", "%ff") refused as the caller's error. */
export function decodePath(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    throw Errors.badRequest(`invalid percent-encoding in path: ${JSON.stringify(text.slice(0, 200))} (escape "%" as %25 and use UTF-8 bytes)`);
  }
}

/** Go's cleanPath (net/http): path.Clean, keeping a trailing slash. */
export function cleanPath(p: string): string {
  if (p === '') return '/';
  const rooted = p.startsWith('/') ? p : `/${p}`;
  // posix.normalize is path.Clean for rooted paths except that it keeps a trailing slash, which Go puts back.
  const clean = posix.normalize(rooted);
  return rooted.endsWith('/') || clean === '/' ? clean : clean.replace(/\/$/, '');
}

const UNCLEAN = /\/\/|\/\.\.?(?:\/|$)/;

/** The decoded path, or where to redirect to when it is not clean (its query kept). */
export function canonicalPath(rawPathname: string, rawQuery: string | undefined): { path: string } | { redirect: string } {
  const decoded = decodePath(rawPathname);
  // Most paths are clean: only "//" or a "." / ".." segment needs the cleaning below. A target not
  // starting with "/" (absolute-form, "*") is left as it is and refused as an unsupported path.
  if (!decoded.startsWith('/') || !UNCLEAN.test(decoded)) return { path: decoded };
  const clean = cleanPath(decoded);
  if (clean === decoded) return { path: decoded };
  // Re-encoded so a decoded "?" or "#" stays part of the path.
  const location = encodeURI(clean).replace(/\?/g, '%3F').replace(/#/g, '%23');
  return { redirect: rawQuery === undefined ? location : `${location}?${rawQuery}` };
}
