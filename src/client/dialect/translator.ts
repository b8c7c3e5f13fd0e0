// The translator: request bodies out and read responses in, mount types, enum values and error
// texts, between keyward's names and the server's. The keyward dialect is the identity (except the
// redaction of secrets on read, which applies to every server).

import type { ServerDialect } from '../options';
import { ERROR_WORDS, FIELD_NAMES, FIELD_VALUES, MOUNT_TYPES, SECRETS_ON_READ, type Shape } from './tables';

const invert = (m: Readonly<Record<string, string>>): Record<string, string> => Object.fromEntries(Object.entries(m).map(([k, v]) => [v, k]));

const SHAPES = Object.keys(FIELD_NAMES) as Shape[];
const NAMES_IN: Record<Shape, Record<string, string>> = Object.fromEntries(SHAPES.map((s) => [s, invert(FIELD_NAMES[s])])) as Record<Shape, Record<string, string>>;
const VALUES_IN: Record<Shape, Record<string, Record<string, string>>> = Object.fromEntries(
  SHAPES.map((s) => [s, Object.fromEntries(Object.entries(FIELD_VALUES[s]).map(([f, m]) => [f, invert(m)]))]),
) as Record<Shape, Record<string, Record<string, string>>>;
const MOUNT_IN = invert(MOUNT_TYPES);

/** Vault field names and enum values (every shape) -> keyward's, for error texts. */
const ERROR_NAMES: Readonly<Record<string, string>> = Object.assign(
  {},
  ...SHAPES.map((sh) => NAMES_IN[sh]),
  ...SHAPES.flatMap((sh) => Object.values(VALUES_IN[sh])).map((m) => Object.fromEntries(Object.entries(m).filter(([v, k]) => v !== k))),
);

/**
 * The pieces of an error text a translation may touch: a quoted string (only when it IS a field
 * name or enum value: `'gce'`, `"gce_alias"`), or a bare token whose parts are joined by `-`, `.`,
 * `/`, `:` or `@` (a name such as `gce-prod-1`, `auth/gce/config` or a label `gce:web` is one
 * token, so nothing inside it changes).
 * A quote must not follow a word character, so the apostrophe of "can't" opens nothing.
 */
const PIECES = /(?<!\w)(["'`])([^"'`\n]*)\1(?!\w)|[A-Za-z0-9_]+(?:[-./:@][A-Za-z0-9_]+)*/g;

/** Vault field names only (every shape) -> keyward's: a quoted field name is Vault's, never a user's value. */
const QUOTED_FIELDS: Readonly<Record<string, string>> = Object.assign({}, ...SHAPES.map((sh) => NAMES_IN[sh]));
/** Per field (Vault's and keyward's spelling): its enum values Vault -> keyward. */
const QUOTED_VALUES: Readonly<Record<string, Readonly<Record<string, string>>>> = Object.assign(
  {},
  ...SHAPES.flatMap((sh) => Object.entries(VALUES_IN[sh]).flatMap(([f, m]) => [{ [f]: m }, { [NAMES_IN[sh][f] ?? f]: m }])),
);

/**
 * A quoted string is a value someone chose (`role "gce" not found`): it is translated only when it
 * is a Vault field name, or an enum value right after its own field (`type 'gce'`, `storage_type
 * "aws-s3"`), where it can only be Vault's word. Bare tokens translate as whole names.
 */
function translateError(text: string): string {
  return text.replace(PIECES, (piece: string, quote: string | undefined, inner: string | undefined, offset: number) => {
    if (quote === undefined) return ERROR_NAMES[piece] ?? ERROR_WORDS[piece] ?? piece;
    const value = inner ?? '';
    if (QUOTED_FIELDS[value] !== undefined) return `${quote}${QUOTED_FIELDS[value]}${quote}`;
    const field = /([A-Za-z_]+)\s*[:=]?\s*$/.exec(text.slice(0, offset))?.[1];
    const mapped = field !== undefined ? QUOTED_VALUES[field]?.[value] : undefined;
    return mapped !== undefined ? `${quote}${mapped}${quote}` : piece;
  });
}

/** keyward field names and enum values (every shape) -> Vault's, for texts a Vault-named caller reads. */
const ERROR_NAMES_OUT: Readonly<Record<string, string>> = Object.assign(
  {},
  ...SHAPES.map((sh) => FIELD_NAMES[sh]),
  ...SHAPES.flatMap((sh) => Object.values(FIELD_VALUES[sh])).map((m) => Object.fromEntries(Object.entries(m).filter(([k, v]) => v !== k))),
);

/** The reverse of translateError for field names and values (whole tokens only, as there). */
function translateErrorOut(text: string): string {
  return text.replace(PIECES, (piece: string, quote: string | undefined, inner: string | undefined) => {
    if (quote !== undefined) return ERROR_NAMES_OUT[inner ?? ''] !== undefined ? `${quote}${ERROR_NAMES_OUT[inner!]}${quote}` : piece;
    return ERROR_NAMES_OUT[piece] ?? piece;
  });
}

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
  /**
   * For a part that serves this dialect itself (the snapshot agent): a request body in the
   * server's names -> keyward's, secrets kept, and keyward's texts in the server's names.
   */
  bodyFromServer(shape: Shape, body: Record<string, unknown>): Record<string, unknown>;
  errorsToServer(errors: readonly string[]): string[];
  /** One field name (keyward's) as the server spells it, for --show-server-names. */
  fieldName(shape: Shape, field: string): string;
  /** One enum value (keyward's) as the server spells it, for --show-server-names. */
  fieldValue(shape: Shape, field: string, value: string): string;
}

/**
 * Secret values are dropped; which secrets the server holds (a non-empty value came back: Vault
 * returns a snapshot config's stored secrets, vault#10971) is kept as `secrets_held`, in keyward's
 * names, so a plan can say that a write would remove one nobody declared.
 */
function redact(shape: Shape, data: Record<string, unknown>): Record<string, unknown> {
  const drop = SECRETS_ON_READ[shape];
  if (drop.length === 0) return data;
  const isSecret = (k: string) => drop.includes(k) || drop.includes(FIELD_NAMES[shape][k] ?? '');
  const out = Object.fromEntries(Object.entries(data).filter(([k]) => !isSecret(k)));
  // A server that never returns secrets (keyward's engine) says nothing about them: no list.
  if (shape !== 'snapshot-config' || !Object.keys(data).some(isSecret)) return out;
  const held = Object.entries(data)
    .filter(([k, v]) => isSecret(k) && typeof v === 'string' && v !== '')
    .map(([k]) => NAMES_IN[shape][k] ?? k)
    .sort();
  return { ...out, [SECRETS_HELD]: held };
}

/** The read field listing the secrets the server holds (values never kept). */
export const SECRETS_HELD = 'secrets_held';

const keywardTranslator: Translator = {
  dialect: 'keyward',
  toServer: (_shape, body) => body,
  fromServer: (shape, data) => redact(shape, data),
  mountTypeToServer: (t) => t,
  mountTypeFromServer: (t) => t,
  errorsFromServer: (e) => [...e],
  bodyFromServer: (_shape, body) => body,
  errorsToServer: (e) => [...e],
  fieldName: (_s, f) => f,
  fieldValue: (_s, _f, v) => v,
};

const vaultTranslator: Translator = {
  dialect: 'vault',
  toServer: (shape, body) => renamed(body, FIELD_NAMES[shape], FIELD_VALUES[shape]),
  fromServer: (shape, data) => renamed(redact(shape, data), NAMES_IN[shape], VALUES_IN[shape]),
  mountTypeToServer: (t) => MOUNT_TYPES[t] ?? t,
  mountTypeFromServer: (t) => MOUNT_IN[t] ?? t,
  errorsFromServer: (errors) => errors.map(translateError),
  bodyFromServer: (shape, body) => renamed(body, NAMES_IN[shape], VALUES_IN[shape]),
  errorsToServer: (errors) => errors.map(translateErrorOut),
  fieldName: (shape, f) => FIELD_NAMES[shape][f] ?? f,
  fieldValue: (shape, f, v) => FIELD_VALUES[shape][f]?.[v] ?? v,
};

export interface TranslatorOptions {
  /**
   * The plugin type name the server's GCP-style auth method is registered under, when not the
   * dialect's default (`cloud` on the engine, `gcp` on Vault): on OpenBao it is an external plugin
   * registered under a name the operator chose (sys/plugins/catalog).
   */
  cloudPlugin?: string;
}

export function translatorFor(dialect: ServerDialect, o: TranslatorOptions = {}): Translator {
  const base = dialect === 'vault' ? vaultTranslator : keywardTranslator;
  const plugin = o.cloudPlugin;
  if (!plugin || plugin === base.mountTypeToServer('cloud')) return base;
  return {
    ...base,
    mountTypeToServer: (t) => (t === 'cloud' ? plugin : base.mountTypeToServer(t)),
    mountTypeFromServer: (t) => (t === plugin ? 'cloud' : base.mountTypeFromServer(t)),
  };
}
