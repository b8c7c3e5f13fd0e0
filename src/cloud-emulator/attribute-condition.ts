// The subset of CEL a workload identity provider's attribute condition may use in the emulator:
// comparisons on the subject token's `sub` claim (==, !=, startsWith, endsWith) combined with !,
// &&, || and parentheses. Parsed once when the description is loaded; anything else is refused there.

export type Condition = (sub: string) => boolean;

// `google.subject` is the subject under the default attribute mapping (google.subject = assertion.sub).
const TOKEN = /\s*(\|\||&&|\(|\)|==|!=|!|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|(?:assertion\.sub|google\.subject)(?:\.startsWith|\.endsWith)?)/y;

function tokenize(text: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  while (at < text.length) {
    if (/^\s*$/.test(text.slice(at))) break;
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(text);
    if (!m)
      throw new Error(
        `attribute condition: unsupported syntax at ${JSON.stringify(text.slice(at).trim().slice(0, 30))} (the emulator understands assertion.sub or google.subject with ==, !=, .startsWith(), .endsWith(), !, &&, ||)`,
      );
    out.push(m[1].replace(/^google\.subject/, 'assertion.sub'));
    at = TOKEN.lastIndex;
  }
  return out;
}

/** Parses a condition; throws naming what it cannot understand. */
export function parseAttributeCondition(text: string): Condition {
  const toks = tokenize(text);
  let i = 0;
  const peek = () => toks[i];
  const take = (want?: string) => {
    const t = toks[i++];
    if (t === undefined || (want !== undefined && t !== want)) throw new Error(`attribute condition: expected ${want ?? 'more input'} in ${JSON.stringify(text)}`);
    return t;
  };
  const literal = () => {
    const t = take();
    if (!t.startsWith('"') && !t.startsWith("'")) throw new Error(`attribute condition: expected a string literal, found ${t}`);
    // CEL strings take either quote; the escapes the emulator needs are JSON's.
    return JSON.parse(
      `"${t
        .slice(1, -1)
        .replace(/\\'/g, "'")
        .replace(/(^|[^\\])"/g, '$1\\"')}"`,
    ) as string;
  };
  const atom = (): Condition => {
    const t = take();
    if (t === '!') {
      const inner = atom();
      return (s) => !inner(s);
    }
    if (t === '(') {
      const inner = or();
      take(')');
      return inner;
    }
    if (t === 'assertion.sub.startsWith' || t === 'assertion.sub.endsWith') {
      take('(');
      const lit = literal();
      take(')');
      return t.endsWith('startsWith') ? (s) => s.startsWith(lit) : (s) => s.endsWith(lit);
    }
    if (t === 'assertion.sub') {
      const op = take();
      if (op !== '==' && op !== '!=') throw new Error(`attribute condition: expected == or != after assertion.sub, found ${op}`);
      const lit = literal();
      return op === '==' ? (s) => s === lit : (s) => s !== lit;
    }
    throw new Error(`attribute condition: unexpected ${t}`);
  };
  const and = (): Condition => {
    let left = atom();
    while (peek() === '&&') {
      take();
      const l = left;
      const r = atom();
      left = (s) => l(s) && r(s);
    }
    return left;
  };
  const or = (): Condition => {
    let left = and();
    while (peek() === '||') {
      take();
      const l = left;
      const r = and();
      left = (s) => l(s) || r(s);
    }
    return left;
  };
  const cond = or();
  if (i !== toks.length) throw new Error(`attribute condition: unexpected ${toks[i]} in ${JSON.stringify(text)}`);
  return cond;
}
