// BlockSchema → tfplugin6.Schema. Attribute types travel as cty type JSON bytes; nested attributes
// travel as nested_type objects (protocol 6 only), which Terraform turns into the implied object types.
import type { AttributeSchema, BlockSchema } from './contract';
import { typeToJson } from './cty-type';

const NESTING = { single: 1, list: 2, set: 3, map: 4 } as const;

export interface WireAttribute {
  name: string;
  type?: Buffer;
  nested_type?: { attributes: WireAttribute[]; nesting: number };
  description: string;
  required: boolean;
  optional: boolean;
  computed: boolean;
  sensitive: boolean;
  deprecated: boolean;
  write_only: boolean;
}

export interface WireSchema {
  version: number;
  block: { version: number; attributes: WireAttribute[]; block_types: never[]; description: string; deprecated: boolean };
}

export function schemaToWire(schema: BlockSchema): WireSchema {
  return {
    version: schema.version,
    block: {
      version: schema.version,
      attributes: attributesToWire(schema.attributes),
      block_types: [],
      description: schema.description ?? '',
      deprecated: false,
    },
  };
}

function attributesToWire(attributes: Record<string, AttributeSchema>): WireAttribute[] {
  // Sorted so the schema bytes (and Terraform's schema cache) do not depend on declaration order.
  return Object.keys(attributes)
    .sort()
    .map((name) => attributeToWire(name, attributes[name]!));
}

function attributeToWire(name: string, attr: AttributeSchema): WireAttribute {
  const out: WireAttribute = {
    name,
    description: attr.description ?? '',
    required: attr.required ?? false,
    optional: attr.optional ?? false,
    computed: attr.computed ?? false,
    sensitive: attr.sensitive ?? false,
    deprecated: attr.deprecated ?? false,
    write_only: attr.writeOnly ?? false,
  };
  if (attr.nested) {
    out.nested_type = { attributes: attributesToWire(attr.nested.attributes), nesting: NESTING[attr.nested.nesting] };
  } else if (attr.type) {
    out.type = Buffer.from(JSON.stringify(typeToJson(attr.type)));
  } else {
    throw new Error(`attribute ${name}: neither type nor nested attributes`);
  }
  return out;
}
