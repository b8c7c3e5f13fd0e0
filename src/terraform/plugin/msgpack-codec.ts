// cty values as msgpack, the encoding of every DynamicValue Terraform exchanges with a provider:
// null is nil, unknown is an extension (type 0; refined unknowns use type 12 with a payload, and
// any extension decodes as unknown, as cty does), lists and sets are arrays, maps and objects are
// maps, numbers are ints or float64 (cty sends numbers it cannot represent exactly as strings), and
// a dynamic-typed value is the pair [type JSON, value].
import { Decoder, Encoder, ExtData } from '@msgpack/msgpack';
import { UNKNOWN, type Value, type ValueType } from './contract';
import { typeFromJson, typeToJson, type WireType } from './cty-type';
import { inferType } from './infer-type';

const UNKNOWN_EXT = new ExtData(0, new Uint8Array(0));

// One encoder and one decoder per process: encode()/decode() with options build new ones per call
// (a buffer and a key cache each), which was a tenth of the provider's CPU on a refresh of 300 roles.
// Both are synchronous, so one call never sees another's state.
const encoder = new Encoder({ ignoreUndefined: false });
const decoder = new Decoder({ useBigInt64: false });

export function encodeValue(value: Value, type: WireType): Uint8Array {
  return encoder.encode(toWire(value, type, []));
}

export function decodeValue(bytes: Uint8Array, type: WireType): Value {
  return fromWire(decoder.decode(bytes), type, []);
}

// `path` is one stack per encode or decode, pushed and popped around each nested value (no array
// per value: a 10,000-role value has ~250,000 of them); only an error renders it, and a throw ends
// the whole call, so an unpopped stack is never seen again.
function where(path: string[]): string {
  return path.length === 0 ? 'the value' : path.join('.');
}

/** step(value, type, path) with `key` pushed on the path: the one place the stack changes. */
export function nested<V, T, R>(step: (value: V, type: T, path: string[]) => R, value: V, type: T, path: string[], key: string): R {
  path.push(key);
  const out = step(value, type, path);
  path.pop();
  return out;
}

function toWire(value: Value, type: WireType, path: string[]): unknown {
  if (value === UNKNOWN) return UNKNOWN_EXT;
  if (type.kind === 'dynamic') {
    if (value === null) return null;
    const actual = inferType(value);
    return [new TextEncoder().encode(JSON.stringify(typeToJson(actual))), toWire(value, actual, path)];
  }
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case 'string':
      if (typeof value !== 'string') throw new TypeError(`${where(path)}: expected a string`);
      return value;
    case 'number':
      if (typeof value !== 'number') throw new TypeError(`${where(path)}: expected a number`);
      return value;
    case 'bool':
      if (typeof value !== 'boolean') throw new TypeError(`${where(path)}: expected a bool`);
      return value;
    case 'list':
    case 'set': {
      if (!Array.isArray(value)) throw new TypeError(`${where(path)}: expected a ${type.kind}`);
      const out = new Array<unknown>(value.length);
      for (let i = 0; i < value.length; i++) out[i] = nested(toWire, value[i]!, type.element, path, String(i));
      return out;
    }
    case 'tuple':
      if (!Array.isArray(value)) throw new TypeError(`${where(path)}: expected a tuple`);
      return type.elements.map((t, i) => nested(toWire, value[i] ?? null, t, path, String(i)));
    case 'map': {
      if (!isRecord(value)) throw new TypeError(`${where(path)}: expected a map`);
      const out = wireMap();
      for (const [k, v] of Object.entries(value)) out[k] = nested(toWire, v, type.element, path, k);
      return out;
    }
    case 'object': {
      if (!isRecord(value)) throw new TypeError(`${where(path)}: expected an object`);
      const out = wireMap();
      for (const [k, t] of Object.entries(type.attributes)) out[k] = nested(toWire, value[k] ?? null, t, path, k);
      return out;
    }
  }
}

/** A prototype-less object: any key (even "__proto__") is an ordinary msgpack map key. */
function wireMap(): Record<string, unknown> {
  return Object.create(null) as Record<string, unknown>;
}

function fromWire(raw: unknown, type: WireType, path: string[]): Value {
  if (raw instanceof ExtData) return UNKNOWN;
  if (raw === null || raw === undefined) return null;
  switch (type.kind) {
    case 'dynamic': {
      if (!Array.isArray(raw) || raw.length !== 2) throw new TypeError(`${where(path)}: malformed dynamic value`);
      const typeBytes: unknown = raw[0];
      const typeText = typeof typeBytes === 'string' ? typeBytes : new TextDecoder().decode(typeBytes as Uint8Array);
      return fromWire(raw[1], typeFromJson(JSON.parse(typeText)), path);
    }
    case 'string':
      if (typeof raw === 'string') return raw;
      if (raw instanceof Uint8Array) return new TextDecoder().decode(raw);
      throw new TypeError(`${where(path)}: expected a string`);
    case 'number':
      if (typeof raw === 'number') return raw;
      if (typeof raw === 'bigint') return Number(raw);
      if (typeof raw === 'string' && raw.trim() !== '' && !Number.isNaN(Number(raw))) return Number(raw);
      throw new TypeError(`${where(path)}: expected a number`);
    case 'bool':
      if (typeof raw === 'boolean') return raw;
      throw new TypeError(`${where(path)}: expected a bool`);
    case 'list':
    case 'set': {
      if (!Array.isArray(raw)) throw new TypeError(`${where(path)}: expected a ${type.kind}`);
      const out = new Array<Value>(raw.length);
      for (let i = 0; i < raw.length; i++) out[i] = nested(fromWire, raw[i], type.element, path, String(i));
      return out;
    }
    case 'tuple':
      if (!Array.isArray(raw)) throw new TypeError(`${where(path)}: expected a tuple`);
      return type.elements.map((t, i) => nested(fromWire, raw[i], t, path, String(i)));
    case 'map': {
      if (!isRecord(raw)) throw new TypeError(`${where(path)}: expected a map`);
      const out: Record<string, Value> = {};
      for (const [k, v] of Object.entries(raw)) out[k] = nested(fromWire, v, type.element, path, k);
      return out;
    }
    case 'object': {
      if (!isRecord(raw)) throw new TypeError(`${where(path)}: expected an object`);
      const out: Record<string, Value> = {};
      for (const [k, t] of Object.entries(type.attributes)) out[k] = nested(fromWire, raw[k], t, path, k);
      return out;
    }
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array);
}

export type { ValueType };
