// cty types on the wire: the JSON form Terraform reads in schemas and in dynamic values, and the
// object type a schema implies (nested attributes become objects, lists, sets or maps of objects).
import { blockMembers } from './block-members';
import type { AttributeSchema, BlockSchema, ValueType } from './contract';

/** A cty type JSON value: "string", ["list","string"], ["object",{…}], ["tuple",[…]]. */
export type TypeJson = string | [string, unknown];

/** Tuples exist only inside dynamic values (Terraform's `[1, "a"]`); schemas never declare them. */
export type WireType = ValueType | { kind: 'tuple'; elements: WireType[] };

export function typeToJson(type: WireType): TypeJson {
  switch (type.kind) {
    case 'string':
    case 'number':
    case 'bool':
    case 'dynamic':
      return type.kind;
    case 'list':
    case 'set':
    case 'map':
      return [type.kind, typeToJson(type.element)];
    case 'object':
      return ['object', Object.fromEntries(Object.entries(type.attributes).map(([k, t]) => [k, typeToJson(t)]))];
    case 'tuple':
      return ['tuple', type.elements.map(typeToJson)];
  }
}

export function typeFromJson(json: unknown): WireType {
  if (json === 'string' || json === 'number' || json === 'bool' || json === 'dynamic') return { kind: json };
  if (Array.isArray(json) && json.length >= 2) {
    const [kind, arg] = json as [unknown, unknown];
    if (kind === 'list' || kind === 'set' || kind === 'map') return { kind, element: typeFromJson(arg) as ValueType };
    if (kind === 'object' && arg !== null && typeof arg === 'object' && !Array.isArray(arg)) {
      const attributes: Record<string, ValueType> = {};
      for (const [k, t] of Object.entries(arg)) attributes[k] = typeFromJson(t) as ValueType;
      return { kind: 'object', attributes };
    }
    if (kind === 'tuple' && Array.isArray(arg)) return { kind: 'tuple', elements: arg.map(typeFromJson) };
  }
  throw new Error(`unsupported cty type ${JSON.stringify(json)}`);
}

/** The cty type of one attribute: its declared type, or the object type its nested attributes imply. */
export function attributeType(attr: AttributeSchema): ValueType {
  if (attr.type) return attr.type;
  if (!attr.nested) throw new Error('attribute has neither type nor nested attributes');
  const object: ValueType = { kind: 'object', attributes: attributesType(attr.nested.attributes) };
  switch (attr.nested.nesting) {
    case 'single':
      return object;
    case 'list':
    case 'set':
    case 'map':
      return { kind: attr.nested.nesting, element: object };
  }
}

function attributesType(attributes: Record<string, AttributeSchema>): Record<string, ValueType> {
  const out: Record<string, ValueType> = {};
  for (const [name, attr] of Object.entries(attributes)) out[name] = attributeType(attr);
  return out;
}

/** The object type of a whole resource or provider block. */
export function blockType(schema: BlockSchema): ValueType & { kind: 'object' } {
  return { kind: 'object', attributes: attributesType(blockMembers(schema.attributes, schema.blocks)) };
}
