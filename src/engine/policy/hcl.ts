// Parses Vault ACL policy documents, in the HCL subset Vault policies use or in JSON, into a typed
// Policy. A small tokenizer and recursive-descent parser for exactly this grammar, no HCL library.

import { Errors } from '../../schema/errors';
import { parseDurationSeconds } from '../../schema/duration';

/** Vault's capability names, in the order error messages list them. */
export const CAPABILITIES = ['create', 'read', 'update', 'delete', 'list', 'sudo', 'deny', 'patch', 'subscribe'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export interface PolicyRule {
  /** The path as written minus a leading "/" (and a trailing "*" kept), prefixed by the namespace path. */
  readonly path: string;
  /** A rule holding "deny" holds nothing else, as in Vault. */
  readonly capabilities: ReadonlySet<Capability>;
  /** The path ends in "*" (a prefix glob). */
  readonly isPrefix: boolean;
  /** The path has a "+" segment. */
  readonly hasSegmentWildcard: boolean;
  // Parsed and kept so policies round-trip; the engine does not enforce them.
  readonly allowedParameters?: Record<string, unknown[]>;
  readonly deniedParameters?: Record<string, unknown[]>;
  readonly requiredParameters?: string[];
  readonly minWrappingTtlSeconds?: number;
  readonly maxWrappingTtlSeconds?: number;
  readonly subscribeEventTypes?: string[];
}

export interface Policy {
  readonly name: string;
  readonly rules: readonly PolicyRule[];
}

export interface ParseOptions {
  /** Namespace the policy lives in ("" for root, else "team/"): Vault prefixes rule paths with it. */
  namespacePath?: string;
}

interface Pos {
  line: number;
  col: number;
}
type Kind = 'ident' | 'string' | 'number' | '{' | '}' | '[' | ']' | '=' | ':' | ',' | 'eof';
interface Token extends Pos {
  kind: Kind;
  text: string;
  value: string | number;
}
type Node = Pos &
  (
    | { kind: 'string'; value: string }
    | { kind: 'number'; value: number }
    | { kind: 'bool'; value: boolean }
    | { kind: 'list'; items: Node[] }
    | { kind: 'object'; entries: Entry[] }
  );
interface Entry extends Pos {
  key: string;
  labels: string[];
  block?: boolean;
  value: Node;
}

const PATH_KEYS = [
  'capabilities',
  'policy',
  'comment',
  'allowed_parameters',
  'denied_parameters',
  'required_parameters',
  'min_wrapping_ttl',
  'max_wrapping_ttl',
  'subscribe_event_types',
];
// Vault's pre-0.5 `policy = "read"` shorthand, still accepted by Vault.
const LEGACY_POLICY: Record<string, Capability[]> = {
  deny: ['deny'],
  read: ['read', 'list'],
  write: ['create', 'read', 'update', 'delete', 'list'],
  sudo: ['create', 'read', 'update', 'delete', 'list', 'sudo'],
};

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', '/': '/' };

function fail(pos: Pos, message: string): never {
  throw Errors.badRequest(`failed to parse policy: line ${pos.line}, column ${pos.col}: ${message}`);
}

const describe = (t: Token): string => (t.kind === 'eof' ? 'end of input' : t.kind === 'string' ? JSON.stringify(t.value) : `"${t.text}"`);

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0,
    line = 1,
    col = 1;
  const advance = (n: number): void => {
    for (let k = 0; k < n; k++, i++) {
      if (src[i] === '\n') {
        line++;
        col = 1;
      } else col++;
    }
  };
  while (i < src.length) {
    const c = src[i];
    const start = { line, col };
    if (/\s/.test(c)) {
      advance(1);
      continue;
    }
    if (c === '#' || src.startsWith('//', i)) {
      while (i < src.length && src[i] !== '\n') advance(1);
      continue;
    }
    if (src.startsWith('/*', i)) {
      const end = src.indexOf('*/', i + 2);
      if (end < 0) fail(start, 'comment "/*" is not closed with "*/"');
      advance(end + 2 - i);
      continue;
    }
    if ('{}[]=:,'.includes(c)) {
      out.push({ kind: c as Kind, text: c, value: c, ...start });
      advance(1);
      continue;
    }
    if (c === '"') {
      let value = '';
      advance(1);
      for (;;) {
        if (i >= src.length || src[i] === '\n') fail(start, 'string is not closed with "\\""');
        const ch = src[i];
        if (ch === '"') {
          advance(1);
          break;
        }
        if (ch !== '\\') {
          value += ch;
          advance(1);
          continue;
        }
        const esc = src[i + 1];
        if (esc in ESCAPES) {
          value += ESCAPES[esc];
          advance(2);
          continue;
        }
        const hex = esc === 'u' ? src.slice(i + 2, i + 6) : '';
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail({ line, col }, `invalid escape "\\${esc ?? ''}" in string`);
        value += String.fromCharCode(parseInt(hex, 16));
        advance(6);
      }
      out.push({ kind: 'string', text: value, value, ...start });
      continue;
    }
    const num = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(src.slice(i, i + 64));
    if (num) {
      out.push({ kind: 'number', text: num[0], value: Number(num[0]), ...start });
      advance(num[0].length);
      continue;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_.-]*/.exec(src.slice(i, i + 256));
    if (!ident) fail(start, `unexpected character ${JSON.stringify(c)}`);
    out.push({ kind: 'ident', text: ident[0], value: ident[0], ...start });
    advance(ident[0].length);
  }
  out.push({ kind: 'eof', text: '', value: '', line, col });
  return out;
}

/** Recursive descent over the tokens. `json` switches object entries from `key = value` to `"key": value`. */
class Parser {
  private at = 0;
  constructor(
    private readonly toks: Token[],
    private readonly json: boolean,
  ) {}

  private peek(): Token {
    return this.toks[this.at];
  }
  private next(): Token {
    return this.toks[this.at++];
  }
  private expect(kind: Kind): Token {
    const t = this.next();
    if (t.kind !== kind) fail(t, `expected ${kind === 'eof' ? 'end of input' : `"${kind}"`}, found ${describe(t)}`);
    return t;
  }

  document(): Entry[] {
    if (this.json) {
      const root = this.value();
      this.expect('eof');
      if (root.kind !== 'object') fail(root, 'a JSON policy must be an object such as {"path": {...}}');
      return root.entries;
    }
    return this.body('eof');
  }

  /** Entries up to `end`: `key = value`, or (HCL) `key "label"... { body }`, separated by optional commas. */
  private body(end: '}' | 'eof'): Entry[] {
    const entries: Entry[] = [];
    while (this.peek().kind !== end) {
      const t = this.next();
      if (t.kind !== 'ident' && t.kind !== 'string') fail(t, `expected a key such as "path", found ${describe(t)}`);
      const entry = { key: String(t.value), labels: [] as string[], line: t.line, col: t.col };
      if (this.json) {
        this.expect(':');
        entries.push({ ...entry, value: this.value() });
      } else {
        while (this.peek().kind === 'string') entry.labels.push(String(this.next().value));
        const sep = this.next();
        if (sep.kind === '{') entries.push({ ...entry, block: true, value: this.objectRest(sep) });
        else if (sep.kind === '=' && entry.labels.length === 0) entries.push({ ...entry, value: this.value() });
        else if (sep.kind === '=') {
          fail(sep, `expected "{" after ${entry.key} ${JSON.stringify(entry.labels.join(' '))} (policies write ${entry.key} "<glob>" { ... } with no "=")`);
        } else fail(sep, `expected ${entry.labels.length ? '"{"' : '"=" or "{"'}, found ${describe(sep)}`);
      }
      if (this.peek().kind === ',') this.next();
    }
    if (end === '}') this.next();
    return entries;
  }

  private objectRest(open: Token): Node {
    return { kind: 'object', entries: this.body('}'), line: open.line, col: open.col };
  }

  private value(): Node {
    const t = this.next();
    const pos = { line: t.line, col: t.col };
    switch (t.kind) {
      case 'string':
        return { kind: 'string', value: String(t.value), ...pos };
      case 'number':
        return { kind: 'number', value: Number(t.value), ...pos };
      case '{':
        return this.objectRest(t);
      case '[': {
        const items: Node[] = [];
        while (this.peek().kind !== ']') {
          items.push(this.value());
          if (this.peek().kind !== ',') break;
          this.next(); // a trailing comma before "]" is allowed
        }
        const close = this.next();
        if (close.kind !== ']') fail(close, `expected "," or "]", found ${describe(close)}`);
        return { kind: 'list', items, ...pos };
      }
      case 'ident':
        if (t.text === 'true' || t.text === 'false') return { kind: 'bool', value: t.text === 'true', ...pos };
    }
    return fail(t, `expected a value (string, number, list or object), found ${describe(t)}`);
  }
}

const scalar = (n: Node): unknown => {
  if (n.kind === 'list') return n.items.map(scalar);
  if (n.kind === 'object') return Object.fromEntries(n.entries.map((e) => [e.key, scalar(e.value)]));
  return n.value;
};

function stringList(n: Node, key: string, path: string): string[] {
  if (n.kind === 'string') return [n.value];
  if (n.kind !== 'list') fail(n, `path ${JSON.stringify(path)}: ${key} must be a list of strings`);
  return n.items.map((item) => (item.kind === 'string' ? item.value : fail(item, `path ${JSON.stringify(path)}: ${key} must be a list of strings`)));
}

function parameterMap(n: Node, key: string, path: string): Record<string, unknown[]> {
  if (n.kind !== 'object') fail(n, `path ${JSON.stringify(path)}: ${key} must be an object such as { "name" = ["value"] }`);
  const out: Record<string, unknown[]> = {};
  for (const e of n.entries) {
    if (e.value.kind !== 'list') fail(e.value, `path ${JSON.stringify(path)}: ${key}.${e.key} must be a list of values`);
    out[e.key.toLowerCase()] = [...(out[e.key.toLowerCase()] ?? []), ...(scalar(e.value) as unknown[])];
  }
  return out;
}

function ttl(n: Node, key: string, path: string): number {
  if (n.kind !== 'string' && n.kind !== 'number') fail(n, `path ${JSON.stringify(path)}: ${key} must be a duration such as "30s"`);
  try {
    return parseDurationSeconds(n.value);
  } catch (e) {
    return fail(n, `path ${JSON.stringify(path)}: ${key}: ${(e as Error).message}`);
  }
}

function buildRule(written: string, body: Node, at: Pos, ns: string): PolicyRule {
  if (body.kind !== 'object') fail(body, `path ${JSON.stringify(written)}: expected a block { capabilities = [...] }`);
  const path = ns + (written.startsWith('/') ? written.slice(1) : written);
  if (path.includes('+*')) fail(at, `path ${JSON.stringify(path)}: invalid use of wildcards ('+*' is forbidden)`);
  const caps = new Set<Capability>();
  const rule: { -readonly [K in keyof PolicyRule]?: PolicyRule[K] } = {};
  const seen = new Set<string>();
  for (const e of body.entries) {
    if (!PATH_KEYS.includes(e.key)) fail(e, `path ${JSON.stringify(written)}: invalid key "${e.key}" (allowed: ${PATH_KEYS.join(', ')})`);
    if (seen.has(e.key)) fail(e, `path ${JSON.stringify(written)}: duplicate key "${e.key}"`);
    seen.add(e.key);
    const v = e.value;
    switch (e.key) {
      case 'capabilities':
        for (const c of stringList(v, e.key, written)) {
          if (!(CAPABILITIES as readonly string[]).includes(c)) {
            fail(v, `path ${JSON.stringify(written)}: invalid capability ${JSON.stringify(c)} (allowed: ${CAPABILITIES.join(', ')})`);
          }
          caps.add(c as Capability);
        }
        break;
      case 'policy': {
        const legacy = v.kind === 'string' ? LEGACY_POLICY[v.value] : undefined;
        if (!legacy) fail(v, `path ${JSON.stringify(written)}: policy must be one of ${Object.keys(LEGACY_POLICY).join(', ')}`);
        legacy.forEach((c) => caps.add(c));
        break;
      }
      case 'comment':
        if (v.kind !== 'string') fail(v, `path ${JSON.stringify(written)}: comment must be a string`);
        break;
      case 'allowed_parameters':
        rule.allowedParameters = parameterMap(v, e.key, written);
        break;
      case 'denied_parameters':
        rule.deniedParameters = parameterMap(v, e.key, written);
        break;
      case 'required_parameters':
        rule.requiredParameters = stringList(v, e.key, written);
        break;
      case 'subscribe_event_types':
        rule.subscribeEventTypes = stringList(v, e.key, written);
        break;
      case 'min_wrapping_ttl':
        rule.minWrappingTtlSeconds = ttl(v, e.key, written);
        break;
      case 'max_wrapping_ttl':
        rule.maxWrappingTtlSeconds = ttl(v, e.key, written);
        break;
    }
  }
  const { minWrappingTtlSeconds: min, maxWrappingTtlSeconds: max } = rule;
  if (min && max && max < min) fail(at, `path ${JSON.stringify(written)}: max_wrapping_ttl cannot be less than min_wrapping_ttl`);
  const hasSegmentWildcard = path === '+' || path.includes('/+') || path.startsWith('+/');
  const capabilities = caps.has('deny') ? new Set<Capability>(['deny']) : caps;
  return { ...rule, path, capabilities, isPrefix: path.endsWith('*'), hasSegmentWildcard };
}

/** Parses a policy document; throws ApiError invalid_request naming the line, column and the rule broken. */
export function parsePolicy(name: string, text: string, options: ParseOptions = {}): Policy {
  const tokens = tokenize(text);
  const entries = new Parser(tokens, tokens[0].kind === '{').document();
  const rules: PolicyRule[] = [];
  const ns = options.namespacePath ?? '';
  for (const e of entries) {
    if (e.key === 'name') continue; // Vault ignores a name written inside the document
    if (e.key !== 'path') fail(e, `invalid key "${e.key}": a policy holds only path "<glob>" { ... } blocks`);
    if (e.block && e.labels.length !== 1) fail(e, `expected one path string after "path", as in path "secret/*" { ... }, found ${e.labels.length}`);
    if (e.labels.length === 1) {
      rules.push(buildRule(e.labels[0], e.value, e, ns));
      continue;
    }
    // `path = { "<glob>" = {...} }` and JSON's "path": {...} or [{...}, ...]
    const groups = e.value.kind === 'list' ? e.value.items : [e.value];
    for (const g of groups) {
      if (g.kind !== 'object') fail(g, 'expected path "<glob>" { ... } or, in JSON, "path": {"<glob>": {...}}');
      for (const p of g.entries) rules.push(buildRule(p.key, p.value, p, ns));
    }
  }
  return { name, rules };
}
