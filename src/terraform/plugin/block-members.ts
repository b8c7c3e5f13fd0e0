// Nested blocks seen as nested attributes: the value a block carries (its cty type, where its
// write-only attributes sit) is the same as a nested attribute of the same nesting would carry,
// so the type and write-only walks treat both alike. Only the schema wire form tells them apart.
import { UNKNOWN, type AttributeSchema, type NestedBlockSchema, type ObjectValue, type Value } from './contract';

/** The attributes and the blocks of one block, blocks as nested attributes (recursively). */
export function blockMembers(attributes: Record<string, AttributeSchema>, blocks: Record<string, NestedBlockSchema> | undefined): Record<string, AttributeSchema> {
  if (!blocks || Object.keys(blocks).length === 0) return attributes;
  const out: Record<string, AttributeSchema> = { ...attributes };
  for (const [name, block] of Object.entries(blocks)) {
    if (name in attributes) throw new Error(`block ${name}: an attribute has the same name`);
    out[name] = { nested: { nesting: block.nesting, attributes: blockMembers(block.attributes, block.blocks) }, optional: true };
  }
  return out;
}

/**
 * `value` with every null list, set or map block replaced by its empty value, as Terraform holds
 * blocks: state written while the field was a nested attribute (null when absent) upgrades cleanly.
 */
export function withEmptyBlocks(
  value: ObjectValue | null,
  schema: { attributes: Record<string, AttributeSchema>; blocks?: Record<string, NestedBlockSchema> },
): ObjectValue | null {
  if (value === null || !schema.blocks) return value;
  const out: ObjectValue = { ...value };
  for (const [name, block] of Object.entries(schema.blocks)) {
    const v = out[name] ?? null;
    if (block.nesting === 'single') out[name] = isObject(v) ? withEmptyBlocks(v, block) : v;
    else if (v === null) out[name] = block.nesting === 'map' ? {} : [];
    else if (Array.isArray(v)) out[name] = v.map((e) => (isObject(e) ? withEmptyBlocks(e, block) : e));
    else if (isObject(v)) out[name] = Object.fromEntries(Object.entries(v).map(([k, e]) => [k, isObject(e) ? withEmptyBlocks(e, block) : e]));
  }
  return out;
}

function isObject(v: Value): v is ObjectValue {
  return v !== null && v !== UNKNOWN && typeof v === 'object' && !Array.isArray(v);
}
