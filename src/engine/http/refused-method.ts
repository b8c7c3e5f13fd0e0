// Where a request Node's parser refused for its method starts. Node reports the refusal
// ('clientError', HPE_INVALID_METHOD) with the bytes of the read it was parsing (err.rawPacket) and
// the offset of the byte it stopped at (err.bytesParsed). llhttp matches a method byte by byte
// against the methods it knows, so the bytes it accepted before stopping (a prefix of a known
// method: "LI" of LIST, which could have been LINK) are just before that offset, or were in an
// earlier read when the head came split. This rebuilds the request's start from those bytes.
// Only LIST must come out exactly (it is served); any other refused token is answered 405
// whatever its spelling, so a guess there changes nothing the client sees.

import { METHODS } from 'node:http';

/** Every prefix of every method llhttp knows (PRI: the HTTP/2 preface), the empty one included. */
const PREFIXES = new Set<string>(['']);
for (const m of [...METHODS, 'PRI']) for (let i = 1; i <= m.length; i++) PREFIXES.add(m.slice(0, i));

/** Longer than any method llhttp knows. */
const MAX_PREFIX = 24;

/** Bytes llhttp's method matcher accepts: uppercase letters and '-' (M-SEARCH). */
const isMethodByte = (c: number) => (c >= 0x41 && c <= 0x5a) || c === 0x2d;

/**
 * The refused request from its method token to the end of `raw`, given the offset `at` where the
 * parser stopped. The method is LIST when the bytes from `at` continue it ("ST", or "S" at the end
 * of the read) after an "LI" that is in this read or, when the read starts within it, was in the
 * previous one.
 */
export function refusedRequest(raw: Buffer, at: number): Buffer {
  at = Math.max(0, Math.min(at, raw.length));
  let start = at;
  while (start > 0 && at - start < MAX_PREFIX && isMethodByte(raw[start - 1])) start--;
  const run = raw.toString('latin1', start, at);
  const next = raw.toString('latin1', at, Math.min(at + 3, raw.length));
  const continuesList = next === 'S' ? at + 1 === raw.length : next.startsWith('ST') && (next.length === 2 || !isTokenByte(next.charCodeAt(2)));
  let prefix: string | undefined;
  if (continuesList && (run.endsWith('LI') || (start === 0 && 'LI'.endsWith(run)))) prefix = 'LI';
  else if (!isMethodByte(raw[at] ?? 0)) {
    // The token ended (or went on in bytes no method has, "GET\r", "GETx"): the matcher held all
    // of the known prefix before it.
    for (let k = run.length; k >= 0 && prefix === undefined; k--) if (PREFIXES.has(run.slice(run.length - k))) prefix = run.slice(run.length - k);
  } else {
    // The shortest prefix of a known method the matcher could have been holding: never one that
    // makes a LIST out of a body's last bytes followed by another token.
    for (let k = 0; k <= run.length && prefix === undefined; k++) {
      const s = run.slice(run.length - k);
      if (PREFIXES.has(s) && !PREFIXES.has(s + next.charAt(0))) prefix = s;
    }
  }
  prefix ??= '';
  return Buffer.concat([Buffer.from(prefix, 'latin1'), raw.subarray(at)]);
}

/** RFC 9110 token characters. */
function isTokenByte(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || "!#$%&'*+-.^_`|~".includes(String.fromCharCode(c));
}
