// Nested blocks (tfplugin6 Schema.NestedBlock): their wire form, the value type they imply, and
// cty's rule that a list, set or map block is never null (absent = empty).

import { withEmptyBlocks } from '../../../src/terraform/plugin/block-members';
import { UNKNOWN, type BlockSchema, type ObjectValue } from '../../../src/terraform/plugin/contract';
import { blockType } from '../../../src/terraform/plugin/cty-type';
import { decodeValue, encodeValue } from '../../../src/terraform/plugin/msgpack-codec';
import { schemaToWire } from '../../../src/terraform/plugin/schema-wire';
import { withoutWriteOnly } from '../../../src/terraform/plugin/write-only';
import { backendSchema, importedBackend } from '../../../src/terraform/resources/cloud-auth-backend';

const schema: BlockSchema = {
  version: 2,
  attributes: { name: { type: { kind: 'string' }, required: true } },
  blocks: {
    item: {
      nesting: 'map',
      description: 'items by key',
      attributes: {
        value: { type: { kind: 'string' }, required: true },
        id: { type: { kind: 'string' }, computed: true },
        secret: { type: { kind: 'string' }, optional: true, sensitive: true, writeOnly: true },
      },
    },
    single: { nesting: 'single', attributes: { x: { type: { kind: 'number' }, optional: true } } },
  },
};

test('blocks travel as block_types: type name, nesting, min/max 0, inner attributes keep their flags', () => {
  const wire = schemaToWire(schema);
  expect(wire.block.attributes.map((a) => a.name)).toEqual(['name']);
  expect(wire.block.block_types.map((b) => [b.type_name, b.nesting, b.min_items, b.max_items])).toEqual([
    ['item', 4, 0, 0],
    ['single', 1, 0, 0],
  ]);
  const item = wire.block.block_types[0]!;
  expect(item.block.description).toBe('items by key');
  expect(Object.fromEntries(item.block.attributes.map((a) => [a.name, [a.required, a.optional, a.computed, a.sensitive, a.write_only]]))).toEqual({
    id: [false, false, true, false, false],
    secret: [false, true, false, true, true],
    value: [true, false, false, false, false],
  });
});

test('an attribute and a block of the same name are refused', () => {
  expect(() => schemaToWire({ ...schema, attributes: { ...schema.attributes, item: { type: { kind: 'string' }, optional: true } } })).toThrow('block item');
});

test('the object type includes the blocks, and values round-trip through msgpack', () => {
  const type = blockType(schema);
  expect(type.attributes.item).toEqual({ kind: 'map', element: { kind: 'object', attributes: { value: { kind: 'string' }, id: { kind: 'string' }, secret: { kind: 'string' } } } });
  const value: ObjectValue = { name: 'n', item: { a: { value: 'v', id: UNKNOWN, secret: null } }, single: null };
  expect(decodeValue(encodeValue(value, type), type)).toEqual(value);
});

test('write-only attributes inside blocks are stripped', () => {
  expect(withoutWriteOnly({ name: 'n', item: { a: { value: 'v', id: null, secret: 's' } }, single: null }, schema)).toEqual({
    name: 'n',
    item: { a: { value: 'v', id: null, secret: null } },
    single: null,
  });
});

test('a null map block (state from a nested-attribute schema) becomes the empty map', () => {
  expect(withEmptyBlocks({ name: 'n', item: null, single: null }, schema)).toEqual({ name: 'n', item: {}, single: null });
});

test('keyward_cloud_auth_backend serves roles as a map block, and an import has no roles rather than null ones', () => {
  const wire = schemaToWire(backendSchema);
  expect(wire.block.attributes.map((a) => a.name)).not.toContain('roles');
  const roles = wire.block.block_types.find((b) => b.type_name === 'roles')!;
  expect(roles.nesting).toBe(4);
  expect(roles.block.attributes.find((a) => a.name === 'role_id')).toMatchObject({ computed: true, optional: false });
  expect(roles.block.attributes.find((a) => a.name === 'type')).toMatchObject({ required: true });
  expect(importedBackend('cloud').roles).toEqual({});
});
