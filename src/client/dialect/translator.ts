// The translator: request bodies out and read responses in, mount types, enum values and error
// texts, between keyward's names and the server's. The keyward dialect is the identity (except the
// redaction of secrets on read, which applies to every server).

import type { ServerDialect } from '../options';
import { ERROR_WORDS, FIELD_NAMES, FIELD_VALUES, MOUNT_TYPES, SECRETS_ON_READ, type Shape } from './tables';

const invert = (m: Readonly<Record<string, string>>): Record<string, string> => Object.fromEntries(Object.entries(m).map(([k, v]) => [v, k]));
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');

const SHAPES = Object.keys(FIELD_NAMES) as Shape[];
const NAMES_IN: Record<Shape, Record<string, string>> = Object.fromEntries(SHAPES.map((s) => [s, invert(FIELD_NAMES[s])])) as Record<Shape, Record<string, string>>;
const VALUES_IN: Record<Shape, Record<string, Record<string, string>>> = Object.fromEntries(
  SHAPES.map((s) => [s, Object.fromEntries(Object.entries(FIELD_VALUES[s]).map(([f, m]) => [f, invert(m)]))]),
) as Record<Shape, Record<string, Record<string, string>>>;
const MOUNT_IN = invert(MOUNT_TYPES);

/** Whole-word replacements for error texts: Vault field names and enum values -> keyward's. */
const ERROR_RULES: ReadonlyArray<readonly [RegExp, string]> = [
  ...SHAPES.flatMap((s) => Object.entries(FIELD_NAMES[s]).map(([k, v]) => [new RegExp(`(?<![\\w-])${escape(v)}(?![\\w-])`, 'g'), k] as const)),
  ...Object.entries(FIELD_VALUES['snapshot-config'].storage_type).filter(([k, v]) => k !== v).map(([k, v]) => [new RegExp(`(?<![\\w-])${escape(v)}(?![\\w-])`, 'g'), k] as const),
  ...ERROR_WORDS,
];

function renamed(
  data: Record<string, unknown>,
  names: Readonly<Record<string, string>>,
  values: Readonly<Record<string, Readonly<Record<string, string>>>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    const vm = values[k];
    out[names[k] ?? k] = vm && typeof v === 'string' && vm[v] !== undefined ? vm[v] : v;
  }
  return out;
}

export interface Translator {
  readonly dialect: ServerDialect;
  /** A request body in keyward's names -> the server's. */
  toServer(shape: Shape, body: Record<string, unknown>): Record<string, unknown>;
  /** Read `data` in the server's names -> keyward's, with secret fields removed. */
  fromServer(shape: Shape, data: Record<string, unknown>): Record<string, unknown>;
  mountTypeToServer(type: string): string;
  mountTypeFromServer(type: string): string;
  /** The server's error texts in keyward's words. */
  errorsFromServer(errors: readonly string[]): string[];
  /** One field name (keyward's) as the server spells it, for --show-server-names. */
  fieldName(shape: Shape, field: string): string;
  /** One enum value (keyward's) as the server spells it, for --show-server-names. */
  fieldValue(shape: Shape, field: string, value: string): string;
}

function redact(shape: Shape, data: Record<string, unknown>): Record<string, unknown> {
  const drop = SECRETS_ON_READ[shape];
  if (drop.length === 0) return data;
  return Object.fromEntries(Object.entries(data).filter(([k]) => !drop.includes(k) && !drop.includes(FIELD_NAMES[shape][k] ?? '')));
}

const keywardTranslator: Translator = {
  dialect: 'keyward',
  toServer: (_shape, body) => body,
  fromServer: (shape, data) => redact(shape, data),
  mountTypeToServer: (t) => t,
  mountTypeFromServer: (t) => t,
  errorsFromServer: (e) => [...e],
  fieldName: (_s, f) => f,
  fieldValue: (_s, _f, v) => v,
};

const vaultTranslator: Translator = {
  dialect: 'vault',
  toServer: (shape, body) => renamed(body, FIELD_NAMES[shape], FIELD_VALUES[shape]),
  fromServer: (shape, data) => renamed(redact(shape, data), NAMES_IN[shape], VALUES_IN[shape]),
  mountTypeToServer: (t) => MOUNT_TYPES[t] ?? t,
  mountTypeFromServer: (t) => MOUNT_IN[t] ?? t,
  errorsFromServer: (errors) => errors.map((e) => ERROR_RULES.reduce((s, [re, to]) => s.replace(re, to), e)),
  fieldName: (shape, f) => FIELD_NAMES[shape][f] ?? f,
  fieldValue: (shape, f, v) => FIELD_VALUES[shape][f]?.[v] ?? v,
};

export function translatorFor(dialect: ServerDialect): Translator {
  return dialect === 'vault' ? vaultTranslator : keywardTranslator;
}
