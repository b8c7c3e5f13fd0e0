// A schema as the "## Schema" section of a reference page, in terraform-plugin-docs' layout
// (internal/schemamd): Required / Optional / Read-Only groups sorted by name, each entry
// "- `name` (Type, flags) description", nested blocks and attributes below under anchors
// `nestedblock--a--b` / `nestedatt--a--b` / `nestedobjatt--a--b`. Input is the wire schema
// GetProviderSchema returns, so the page says what Terraform is told.
import { typeFromJson, type WireType } from '../plugin/cty-type';
import type { WireAttribute, WireBlock, WireNestedBlock } from '../plugin/schema-wire';

const WRITE_ONLY_LINK = '[Write-only](https://developer.hashicorp.com/terraform/language/resources/ephemeral#write-only-arguments)';
const WRITE_ONLY_NOTE =
  '> **NOTE**: [Write-only arguments](https://developer.hashicorp.com/terraform/language/resources/ephemeral#write-only-arguments) are supported in Terraform 1.11 and later.\n\n';
const NESTING_WORD: Record<number, string> = { 1: '', 2: ' List', 3: ' Set', 4: ' Map' };

type Group = 'required' | 'optional' | 'readOnly';
const GROUPS: { group: Group; top: string; nested: string }[] = [
  { group: 'required', top: '### Required', nested: 'Required:' },
  { group: 'optional', top: '### Optional', nested: 'Optional:' },
  { group: 'readOnly', top: '### Read-Only', nested: 'Read-Only:' },
];

interface Nested {
  anchor: string;
  path: string[];
  block?: WireBlock;
  attrs?: WireAttribute[];
  object?: Record<string, WireType>;
  group: (typeof GROUPS)[number];
}

export function renderSchemaMarkdown(block: WireBlock): string {
  // Blank-line runs collapsed: the nested sections' separators add up where one section ends another.
  return ('## Schema\n\n' + blockChildren([], block, true)).replace(/\n{3,}/g, '\n\n').replace(/\n+$/, '\n');
}

function attrGroup(a: WireAttribute): Group | undefined {
  if (a.required) return 'required';
  if (a.optional) return 'optional';
  if (a.computed) return 'readOnly';
  return undefined;
}

function blockIsReadOnly(b: WireNestedBlock): boolean {
  if (b.min_items !== 0 || b.max_items !== 0) return false;
  return b.block.block_types.every(blockIsReadOnly) && b.block.attributes.every((a) => attrGroup(a) === 'readOnly');
}

function blockIsOptional(b: WireNestedBlock): boolean {
  if (b.min_items > 0) return false;
  if (b.block.block_types.length === 0 && b.block.attributes.length === 0) return true;
  return b.block.block_types.some((c) => c.min_items > 0 || blockIsOptional(c)) || b.block.attributes.some((a) => a.required || a.optional);
}

function blockGroup(b: WireNestedBlock): Group | undefined {
  if (b.min_items > 0) return 'required';
  if (blockIsOptional(b)) return 'optional';
  if (blockIsReadOnly(b)) return 'readOnly';
  return undefined;
}

function containsWriteOnly(b: WireBlock): boolean {
  return b.attributes.some((a) => a.write_only) || b.block_types.some((c) => containsWriteOnly(c.block));
}

export function typeName(t: WireType): string {
  switch (t.kind) {
    case 'string':
      return 'String';
    case 'number':
      return 'Number';
    case 'bool':
      return 'Boolean';
    case 'dynamic':
      return 'Dynamic';
    case 'list':
      return `List of ${typeName(t.element)}`;
    case 'set':
      return `Set of ${typeName(t.element)}`;
    case 'map':
      return `Map of ${typeName(t.element)}`;
    case 'object':
      return 'Object';
    case 'tuple':
      return 'Tuple';
  }
}

const wireType = (a: WireAttribute): WireType => typeFromJson(JSON.parse(a.type!.toString('utf8')));

function description(text: string): string {
  const d = text.trim();
  return d ? ' ' + d.replace(/\n\n+/g, '  \n') : '';
}

function flags(a: WireAttribute): string {
  return (a.sensitive ? ', Sensitive' : '') + (a.deprecated ? ', Deprecated' : '') + (a.write_only ? `, ${WRITE_ONLY_LINK}` : '');
}

function attributeLine(path: string[], a: WireAttribute, group: (typeof GROUPS)[number]): { line: string; nested: Nested[] } {
  const anchor = 'nestedatt--' + path.join('--');
  const see = ` (see [below for nested schema](#${anchor}))`;
  if (a.nested_type) {
    const n = a.nested_type;
    const head = `(Attributes${NESTING_WORD[n.nesting] ?? ''}${flags(a)})`;
    return { line: `- \`${a.name}\` ${head}${description(a.description)}${see}\n`, nested: [{ anchor, path, attrs: n.attributes, group }] };
  }
  const t = wireType(a);
  const line = `- \`${a.name}\` (${typeName(t)}${flags(a)})${description(a.description)}`;
  const object = t.kind === 'object' ? t : (t.kind === 'list' || t.kind === 'set' || t.kind === 'map') && t.element.kind === 'object' ? t.element : undefined;
  if (!object || object.kind !== 'object') return { line: line + '\n', nested: [] };
  return { line: `${line}${see}\n`, nested: [{ anchor, path, object: object.attributes, group }] };
}

function blockLine(path: string[], b: WireNestedBlock): { line: string; nested: Nested[] } {
  let head = `(Block${NESTING_WORD[b.nesting] ?? ''}`;
  if (b.nesting === 1) {
    const g = blockGroup(b);
    head += g === 'required' ? ', Required' : g === 'optional' ? ', Optional' : ', Read-only';
  } else if (b.min_items > 0) head += `, Min: ${b.min_items}`;
  if (b.max_items > 0) head += `, Max: ${b.max_items}`;
  if (b.block.deprecated) head += ', Deprecated';
  head += ')';
  const anchor = 'nestedblock--' + path.join('--');
  return {
    line: `- \`${b.type_name}\` ${head}${description(b.block.description)} (see [below for nested schema](#${anchor}))\n`,
    nested: [{ anchor, path, block: b.block, group: GROUPS[0]! }],
  };
}

function blockChildren(parents: string[], block: WireBlock, root: boolean): string {
  let out = '';
  const nested: Nested[] = [];
  for (const g of GROUPS) {
    const attrs = block.attributes.filter((a) => attrGroup(a) === g.group).map((a) => ({ name: a.name, attr: a }));
    const blocks = block.block_types.filter((b) => blockGroup(b) === g.group).map((b) => ({ name: b.type_name, block: b }));
    const members = [...attrs, ...blocks].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    if (members.length === 0) continue;
    out += (root ? g.top : g.nested) + '\n\n';
    if (members.some((m) => ('attr' in m ? m.attr.write_only : containsWriteOnly(m.block.block)))) out += WRITE_ONLY_NOTE;
    for (const m of members) {
      const r = 'attr' in m ? attributeLine([...parents, m.name], m.attr, g) : blockLine([...parents, m.name], m.block);
      out += r.line;
      nested.push(...r.nested);
    }
    out += '\n';
  }
  return out + nestedSections(nested);
}

function nestedSections(list: Nested[]): string {
  let out = '';
  for (const n of list) {
    out += `<a id="${n.anchor}"></a>\n### Nested Schema for \`${n.path.join('.')}\`\n\n`;
    if (n.block) out += blockChildren(n.path, n.block, false);
    else if (n.attrs) out += nestedAttributes(n.path, n.attrs);
    else if (n.object) out += objectChildren(n.path, n.object, n.group);
    out += '\n';
  }
  return out;
}

function nestedAttributes(parents: string[], attrs: WireAttribute[]): string {
  let out = '';
  const nested: Nested[] = [];
  for (const g of GROUPS) {
    const members = attrs.filter((a) => attrGroup(a) === g.group).sort((x, y) => (x.name < y.name ? -1 : 1));
    if (members.length === 0) continue;
    out += g.nested + '\n\n';
    for (const a of members) {
      const r = attributeLine([...parents, a.name], a, g);
      out += r.line;
      nested.push(...r.nested);
    }
    out += '\n';
  }
  return out + nestedSections(nested);
}

function objectChildren(parents: string[], attrs: Record<string, WireType>, group: (typeof GROUPS)[number]): string {
  let out = group.nested + '\n\n';
  const nested: Nested[] = [];
  for (const name of Object.keys(attrs).sort()) {
    const t = attrs[name]!;
    const path = [...parents, name];
    const anchor = 'nestedobjatt--' + path.join('--');
    const object = t.kind === 'object' ? t : (t.kind === 'list' || t.kind === 'set' || t.kind === 'map') && t.element.kind === 'object' ? t.element : undefined;
    out += `- \`${name}\` (${typeName(t)})`;
    if (object && object.kind === 'object') {
      out += ` (see [below for nested schema](#${anchor}))`;
      nested.push({ anchor, path, object: object.attributes, group });
    }
    out += '\n';
  }
  return out + '\n' + nestedSections(nested);
}
