// Terraform's JSON state form (UpgradeResourceState and MoveResourceState receive it raw): the
// cty JSON encoding, where a dynamic-typed value is {"value": …, "type": …}. Attributes the current
// schema no longer has are dropped; attributes it added are null.
import type { Value } from './contract';
import { typeFromJson, type WireType } from './cty-type';
import { isRecord } from './msgpack-codec';

export function decodeJsonState(text: string | Uint8Array, type: WireType): Value {
  const raw: unknown = JSON.parse(typeof text === 'string' ? text : new TextDecoder().decode(text));
  return fromJson(raw, type, 'state');
}

function fromJson(raw: unknown, type: WireType, where: string): Value {
  if (raw === null || raw === undefined) return null;
  switch (type.kind) {
    case 'dynamic':
      if (!isRecord(raw) || !('type' in raw)) throw new TypeError(`${where}: malformed dynamic value`);
      return fromJson(raw.value, typeFromJson(raw.type), where);
    case 'string':
      if (typeof raw !== 'string') throw new TypeError(`${where}: expected a string`);
      return raw;
    case 'number':
      if (typeof raw === 'number') return raw;
      if (typeof raw === 'string' && raw.trim() !== '' && !Number.isNaN(Number(raw))) return Number(raw);
      throw new TypeError(`${where}: expected a number`);
    case 'bool':
      if (typeof raw !== 'boolean') throw new TypeError(`${where}: expected a bool`);
      return raw;
    case 'list':
    case 'set':
      if (!Array.isArray(raw)) throw new TypeError(`${where}: expected a ${type.kind}`);
      return raw.map((v, i) => fromJson(v, type.element, `${where}.${i}`));
    case 'tuple':
      if (!Array.isArray(raw)) throw new TypeError(`${where}: expected a tuple`);
      return type.elements.map((t, i) => fromJson(raw[i], t, `${where}.${i}`));
    case 'map': {
      if (!isRecord(raw)) throw new TypeError(`${where}: expected a map`);
      const out: Record<string, Value> = {};
      for (const [k, v] of Object.entries(raw)) out[k] = fromJson(v, type.element, `${where}.${k}`);
      return out;
    }
    case 'object': {
      if (!isRecord(raw)) throw new TypeError(`${where}: expected an object`);
      const out: Record<string, Value> = {};
      for (const [k, t] of Object.entries(type.attributes)) out[k] = fromJson(raw[k], t, `${where}.${k}`);
      return out;
    }
  }
}
