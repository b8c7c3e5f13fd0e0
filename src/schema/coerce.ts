// Vault framework field coercion: how loosely-typed JSON (and query strings) become typed values.
// Each function throws CoerceError with the reason text Vault uses after "error converting input".

import { parseDurationSeconds, DurationError } from './duration';

export class CoerceError extends Error {}

const describe = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);

export function coerceString(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new CoerceError(`expected a string, got ${describe(v)}`);
}

export function coerceBool(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (v === null || v === undefined) return false;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === '') return false;
    if (['1', 't', 'true'].includes(s)) return true;
    if (['0', 'f', 'false'].includes(s)) return false;
    throw new CoerceError(`strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
  }
  throw new CoerceError(`expected a boolean, got ${describe(v)}`);
}

export function coerceInt(v: unknown): number {
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw new CoerceError(`expected an integer, got ${v}`);
    if (!Number.isSafeInteger(v)) throw new CoerceError(`integer ${v} is out of range`);
    return v;
  }
  if (v === null || v === undefined || v === '') return 0;
  if (typeof v === 'string' && /^\s*[-+]?\d+\s*$/.test(v)) {
    const n = Number(v.trim());
    if (!Number.isSafeInteger(n)) throw new CoerceError(`integer ${v} is out of range`);
    return n;
  }
  throw new CoerceError(`cannot parse ${JSON.stringify(v)} as an integer`);
}

export function coerceDuration(v: unknown): number {
  if (typeof v === 'boolean' || (typeof v === 'object' && v !== null)) {
    throw new CoerceError(`expected seconds or a duration string, got ${describe(v)}`);
  }
  try {
    return parseDurationSeconds(v);
  } catch (e) {
    if (e instanceof DurationError) throw new CoerceError(e.message);
    throw e;
  }
}

/** Comma list: a string is split on "," and trimmed; array elements are stringified and trimmed, not split. */
export function coerceCommaList(v: unknown): string[] {
  if (v === null || v === undefined || v === '') return [];
  if (typeof v === 'string') return v.split(',').map((s) => s.trim());
  if (typeof v === 'number' || typeof v === 'boolean') return [String(v)];
  if (Array.isArray(v)) {
    return v.map((item) => {
      if (typeof item === 'string') return item.trim();
      if (typeof item === 'number' || typeof item === 'boolean') return String(item);
      throw new CoerceError(`list elements must be strings, got ${describe(item)}`);
    });
  }
  throw new CoerceError(`expected a list or a comma-separated string, got ${describe(v)}`);
}

/** Key/value map: a JSON object of strings, or a list of "k=v" strings split at the first "=". */
export function coerceKvMap(v: unknown): Record<string, string> {
  if (v === null || v === undefined || v === '') return {};
  if (typeof v === 'object' && !Array.isArray(v)) {
    const out: Record<string, string> = {};
    for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
      if (typeof val === 'object' && val !== null) throw new CoerceError(`value of ${JSON.stringify(k)} must be a string`);
      out[k] = val === null || val === undefined ? '' : String(val);
    }
    return out;
  }
  const items = typeof v === 'string' ? v.split(',').map((s) => s.trim()) : Array.isArray(v) ? v : null;
  if (!items) throw new CoerceError(`expected a map, got ${describe(v)}`);
  const out: Record<string, string> = {};
  for (const item of items) {
    if (typeof item !== 'string') throw new CoerceError(`invalid key pair ${JSON.stringify(item)}`);
    const i = item.indexOf('=');
    if (i <= 0) throw new CoerceError(`invalid key pair ${JSON.stringify(item)}`);
    out[item.slice(0, i)] = item.slice(i + 1);
  }
  return out;
}
