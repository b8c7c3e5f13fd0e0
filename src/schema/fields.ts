// Request field schemas in Vault's framework style, built on zod: each field coerces loose input
// (see coerce.ts); parseFields reports which fields were present (for merge-on-update semantics)
// and which were unknown (for warnings or 422s, per endpoint).

import { z } from 'zod';
import { CoerceError, coerceBool, coerceCommaList, coerceDuration, coerceInt, coerceKvMap, coerceString } from './coerce';
import { ApiError } from './errors';
import type { FieldProblem } from './field-problems';

function coerced<T>(fn: (v: unknown) => T) {
  return z.unknown().transform((v, ctx): T => {
    try {
      return fn(v);
    } catch (e) {
      if (!(e instanceof CoerceError)) throw e;
      ctx.addIssue({ code: 'custom', message: e.message });
      return z.NEVER;
    }
  });
}

const SECRET = 'secret';

/** Field kinds of Vault's framework. */
export const field = {
  string: () => coerced(coerceString),
  /** A string holding a secret: a rejected value is never echoed in the error. */
  secretString: () => coerced(coerceString).describe(SECRET),
  bool: () => coerced(coerceBool),
  int: () => coerced(coerceInt),
  /** Seconds, from an integer or a duration string. */
  duration: () => coerced(coerceDuration),
  commaList: () => coerced(coerceCommaList),
  kvMap: () => coerced(coerceKvMap),
  /** Any JSON value, passed through. */
  raw: () => z.unknown(),
};

export type FieldShape = Record<string, z.ZodType>;
export type ParsedFields<S extends FieldShape> = { [K in keyof S]?: z.output<S[K]> };

export interface FieldParseResult<S extends FieldShape> {
  values: ParsedFields<S>;
  /** Names of the known fields that the request carried. */
  present: Set<keyof S & string>;
  /** Names the schema does not know, sorted. */
  unknown: string[];
}

function show(v: unknown): string {
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

/**
 * Coerces every known field of `body`; the first field that cannot be coerced fails the request
 * with Vault's 400 text. With `problems`, every failure is recorded there instead (the field left
 * out of `values`) and parsing goes on. Unknown fields are only reported; the caller decides.
 */
export function parseFields<S extends FieldShape>(shape: S, body: Record<string, unknown>, problems?: FieldProblem[]): FieldParseResult<S> {
  const values: Record<string, unknown> = {};
  const present = new Set<keyof S & string>();
  const unknown: string[] = [];
  for (const [name, raw] of Object.entries(body)) {
    const schema = Object.prototype.hasOwnProperty.call(shape, name) ? shape[name] : undefined;
    if (!schema) {
      unknown.push(name);
      continue;
    }
    const r = schema.safeParse(raw);
    if (!r.success) {
      const reason = r.error.issues.map((i) => i.message).join('; ');
      const message = `Field validation failed: error converting input ${schema.description === SECRET ? '(sensitive value)' : show(raw)} for field "${name}": ${reason}`;
      if (!problems) throw new ApiError('invalid_request', [message]);
      problems.push({ field: name, message });
      continue;
    }
    values[name] = r.data;
    present.add(name as keyof S & string);
  }
  unknown.sort();
  return { values: values as ParsedFields<S>, present, unknown };
}

/** The warning Vault adds when it ignores parameters it does not know. */
export function unknownFieldsWarning(names: string[]): string {
  return `Endpoint ignored these unrecognized parameters: [${names.join(' ')}]`;
}
