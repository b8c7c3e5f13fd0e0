// Where a request Node's parser refused for its method starts. Node reports the refusal
// ('clientError', HPE_INVALID_METHOD) with the bytes of the read it was parsing (err.rawPacket) and
// the offset of the byte it stopped at (err.bytesParsed). llhttp matches a method byte by byte
// against the methods it knows, so the bytes it accepted before stopping (a prefix of a known
// method: "LI" of LIST, which could have been LINK) are just before that offset, or were in an
// earlier read when the head came split. This rebuilds the request's start from those bytes.
// Only LIST must come out exactly (it is served); any other refused token is answered 405
// whatever its spelling, so a guess there changes nothing the client sees. The one byte sequence
// this cannot tell apart: a Content-Length body ending in capital letters immediately followed by
// a refused token (a body ending "L" before a token "IST" reads as LIST), which no client sends.

/** Longer than any method llhttp knows. */
const MAX_PREFIX = 24;

/** Bytes llhttp's method matcher accepts: uppercase letters and '-' (M-SEARCH). */
const isMethodByte = (c: number) => (c >= 0x41 && c <= 0x5a) || c === 0x2d;

/**
 * The refused request from its method token to the end of `raw`, given the offset `at` where the
 * parser stopped.
 */
export function refusedRequest(raw: Buffer, at: number): Buffer {
  at = Math.max(0, Math.min(at, raw.length));
  let start = at;
  while (start > 0 && at - start < MAX_PREFIX && isMethodByte(raw[start - 1])) start--;
  const run = raw.toString('latin1', start, at);
  const next = raw.toString('latin1', at, Math.min(at + 3, raw.length));
  const continuesList = next === 'S' ? at + 1 === raw.length : next.startsWith('ST') && (next.length === 2 || !isTokenByte(next.charCodeAt(2)));
  // The matcher held every method byte just before `at`; when they reach back to the start of this
  // read, the head came split and the first of them were in the previous read: only an "LI" there
  // matters (a LIST), any other token is answered 405 whatever its first bytes were.
  const prefix = start === 0 && continuesList && 'LI'.endsWith(run) ? 'LI' : run;
  return Buffer.concat([Buffer.from(prefix, 'latin1'), raw.subarray(at)]);
}

/** RFC 9110 token characters. */
function isTokenByte(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || "!#$%&'*+-.^_`|~".includes(String.fromCharCode(c));
}
