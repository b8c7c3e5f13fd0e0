// Terraform's JSON state form (UpgradeResourceState and MoveResourceState receive it raw): the
// cty JSON encoding, where a dynamic-typed value is {"value": …, "type": …}. Attributes the current
// schema no longer has are dropped; attributes it added are null.
import type { Value } from './contract';
import { typeFromJson, type WireType } from './cty-type';
import { isRecord, nested } from './msgpack-codec';

export function decodeJsonState(text: string | Uint8Array, type: WireType): Value {
  const raw: unknown = JSON.parse(typeof text === 'string' ? text : new TextDecoder().decode(text));
  return fromJson(raw, type, ['state']);
}

// `path` is one stack per decode (see msgpack-codec.ts), rendered only into an error message.
function fromJson(raw: unknown, type: WireType, path: string[]): Value {
  if (raw === null || raw === undefined) return null;
  switch (type.kind) {
    case 'dynamic':
      if (!isRecord(raw) || !('type' in raw)) throw new TypeError(`${path.join('.')}: malformed dynamic value`);
      return fromJson(raw.value, typeFromJson(raw.type), path);
    case 'string':
      if (typeof raw !== 'string') throw new TypeError(`${path.join('.')}: expected a string`);
      return raw;
    case 'number':
      if (typeof raw === 'number') return raw;
      if (typeof raw === 'string' && raw.trim() !== '' && !Number.isNaN(Number(raw))) return Number(raw);
      throw new TypeError(`${path.join('.')}: expected a number`);
    case 'bool':
      if (typeof raw !== 'boolean') throw new TypeError(`${path.join('.')}: expected a bool`);
      return raw;
    case 'list':
    case 'set':
    case 'tuple': {
      if (!Array.isArray(raw)) throw new TypeError(`${path.join('.')}: expected a ${type.kind}`);
      const n = type.kind === 'tuple' ? type.elements.length : raw.length;
      const out = new Array<Value>(n);
      for (let i = 0; i < n; i++) out[i] = nested(fromJson, raw[i], type.kind === 'tuple' ? type.elements[i]! : type.element, path, String(i));
      return out;
    }
    case 'map': {
      if (!isRecord(raw)) throw new TypeError(`${path.join('.')}: expected a map`);
      const out: Record<string, Value> = {};
      for (const [k, v] of Object.entries(raw)) out[k] = nested(fromJson, v, type.element, path, k);
      return out;
    }
    case 'object': {
      if (!isRecord(raw)) throw new TypeError(`${path.join('.')}: expected an object`);
      const out: Record<string, Value> = {};
      for (const [k, t] of Object.entries(type.attributes)) out[k] = nested(fromJson, raw[k], t, path, k);
      return out;
    }
  }
}
