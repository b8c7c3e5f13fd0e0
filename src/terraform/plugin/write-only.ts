// Write-only attributes (Terraform >= 1.11) exist only in configuration: the provider must return
// them as null in every planned and new state, and refuse them when the client cannot handle them.
import { blockMembers } from './block-members';
import type { AttributePath, AttributeSchema, BlockSchema, ObjectValue, Value } from './contract';
import { UNKNOWN } from './contract';

/** A copy of `value` with every write-only attribute (nested ones too) set to null. */
export function withoutWriteOnly(value: ObjectValue | null, schema: BlockSchema): ObjectValue | null {
  const { members, any } = writeOnlyOf(schema);
  if (value === null || !any) return value;
  return stripObject(value, members);
}

// Per schema, once: every state a provider returns goes through withoutWriteOnly (each read, plan,
// apply and upgrade), and schemas do not change in a process.
const perSchema = new WeakMap<BlockSchema, { members: Record<string, AttributeSchema>; any: boolean }>();
function writeOnlyOf(schema: BlockSchema): { members: Record<string, AttributeSchema>; any: boolean } {
  let found = perSchema.get(schema);
  if (!found) {
    const members = blockMembers(schema.attributes, schema.blocks);
    perSchema.set(schema, (found = { members, any: hasWriteOnly(members) }));
  }
  return found;
}

/** Paths of write-only attributes that the configuration sets (non-null). */
export function writeOnlyPathsSet(config: ObjectValue, schema: BlockSchema): AttributePath[] {
  const found: AttributePath[] = [];
  collect(config, blockMembers(schema.attributes, schema.blocks), [], found);
  return found;
}

function hasWriteOnly(attributes: Record<string, AttributeSchema>): boolean {
  return Object.values(attributes).some((a) => a.writeOnly || (a.nested !== undefined && hasWriteOnly(a.nested.attributes)));
}

function stripObject(value: ObjectValue, attributes: Record<string, AttributeSchema>): ObjectValue {
  const out: ObjectValue = { ...value };
  for (const [name, attr] of Object.entries(attributes)) {
    if (attr.writeOnly) out[name] = null;
    else if (attr.nested && hasWriteOnly(attr.nested.attributes)) out[name] = stripNested(out[name] ?? null, attr);
  }
  return out;
}

function stripNested(value: Value, attr: AttributeSchema): Value {
  const nested = attr.nested!;
  if (value === null || value === UNKNOWN) return value;
  const strip = (v: Value): Value => (isObject(v) ? stripObject(v, nested.attributes) : v);
  if (nested.nesting === 'single') return strip(value);
  if (Array.isArray(value)) return value.map(strip);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, strip(v)]));
  return value;
}

function collect(value: Value, attributes: Record<string, AttributeSchema>, path: AttributePath, found: AttributePath[]): void {
  if (!isObject(value)) return;
  for (const [name, attr] of Object.entries(attributes)) {
    const v = value[name] ?? null;
    if (v === null) continue;
    if (attr.writeOnly) found.push([...path, name]);
    else if (attr.nested && hasWriteOnly(attr.nested.attributes)) {
      const nested = attr.nested;
      if (nested.nesting === 'single') collect(v, nested.attributes, [...path, name], found);
      else if (Array.isArray(v)) v.forEach((e, i) => collect(e, nested.attributes, [...path, name, { index: i }], found));
      else if (isObject(v)) for (const [k, e] of Object.entries(v)) collect(e, nested.attributes, [...path, name, { key: k }], found);
    }
  }
}

function isObject(value: Value): value is ObjectValue {
  return value !== null && value !== UNKNOWN && typeof value === 'object' && !Array.isArray(value);
}
