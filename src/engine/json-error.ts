// JSON parse errors said without the input: V8's messages can quote the text around the error.

/** V8 messages that name only JSON's grammar, never the input's bytes. */
const GRAMMAR_ONLY =
  /^(Expected [^"]*?|Unterminated string|Unterminated fractional number|Bad control character in string literal|Bad escaped character|No number after minus sign|Exponent part is missing a number|Unexpected non-whitespace character after JSON) in JSON at position (\d+)/;

/**
 * What is wrong with a JSON body, without a byte of it: some of V8's messages quote the text
 * around the error (`Unexpected token 'g', ..."entials": gg"...`), so a key pasted unquoted would
 * come back in the answer and in the logs. Only the grammar and the offset are kept.
 */
export function jsonErrorDetail(e: Error): string {
  if (/^Unexpected end of JSON input/.test(e.message)) return 'unexpected end of JSON input';
  const grammar = GRAMMAR_ONLY.exec(e.message);
  if (grammar) return `${grammar[1].charAt(0).toLowerCase()}${grammar[1].slice(1)} in JSON at offset ${grammar[2]}`;
  const at = / at position (\d+)/.exec(e.message);
  return at ? `invalid character in JSON at offset ${at[1]}` : 'invalid character in JSON';
}
