// BlockSchema → tfplugin6.Schema. Attribute types travel as cty type JSON bytes; nested attributes
// travel as nested_type objects (protocol 6 only), which Terraform turns into the implied object
// types; nested blocks travel as block_types (NestedBlock), each with its own Block.
import type { AttributeSchema, BlockSchema, NestedBlockSchema, ProviderDefinition } from './contract';
import { typeToJson } from './cty-type';

const NESTING = { single: 1, list: 2, set: 3, map: 4 } as const;
/** tfplugin6.StringKind. */
const MARKDOWN = 1;

export interface WireAttribute {
  name: string;
  type?: Buffer;
  nested_type?: { attributes: WireAttribute[]; nesting: number };
  description: string;
  description_kind: number;
  required: boolean;
  optional: boolean;
  computed: boolean;
  sensitive: boolean;
  deprecated: boolean;
  write_only: boolean;
}

export interface WireBlock {
  version: number;
  attributes: WireAttribute[];
  block_types: WireNestedBlock[];
  description: string;
  description_kind: number;
  deprecated: boolean;
}

export interface WireNestedBlock {
  type_name: string;
  block: WireBlock;
  nesting: number;
  min_items: number;
  max_items: number;
}

export interface WireSchema {
  version: number;
  block: WireBlock;
}

/** The schemas GetProviderSchema returns: the provider block's and every registered resource's (the docs are generated from the same). */
export function providerSchemas(definition: Pick<ProviderDefinition, 'schema' | 'resources'>): { provider: WireSchema; resource_schemas: Record<string, WireSchema> } {
  return {
    provider: schemaToWire(definition.schema),
    resource_schemas: Object.fromEntries(definition.resources.map((r) => [r.typeName, schemaToWire(r.schema)])),
  };
}

export function schemaToWire(schema: BlockSchema): WireSchema {
  return { version: schema.version, block: blockToWire(schema.version, schema.attributes, schema.blocks, schema.description) };
}

function blockToWire(
  version: number,
  attributes: Record<string, AttributeSchema>,
  blocks: Record<string, NestedBlockSchema> | undefined,
  description: string | undefined,
): WireBlock {
  for (const name of Object.keys(blocks ?? {})) if (name in attributes) throw new Error(`block ${name}: an attribute has the same name`);
  return {
    version,
    attributes: attributesToWire(attributes),
    block_types: Object.keys(blocks ?? {})
      .sort()
      .map((name) => nestedBlockToWire(name, blocks![name]!)),
    description: description ?? '',
    description_kind: MARKDOWN,
    deprecated: false,
  };
}

function nestedBlockToWire(name: string, block: NestedBlockSchema): WireNestedBlock {
  return {
    type_name: name,
    block: blockToWire(0, block.attributes, block.blocks, block.description),
    nesting: NESTING[block.nesting],
    min_items: block.minItems ?? 0,
    max_items: block.maxItems ?? 0,
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
    description_kind: MARKDOWN,
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
