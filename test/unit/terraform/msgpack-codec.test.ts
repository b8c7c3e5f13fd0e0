// The cty msgpack codec: unknowns (plain and refined), nulls, nested objects, sets, maps, dynamic.
import { encode, ExtData } from '@msgpack/msgpack';
import { UNKNOWN, type Value, type ValueType } from '../../../src/terraform/plugin/contract';
import { attributeType } from '../../../src/terraform/plugin/cty-type';
import { decodeJsonState } from '../../../src/terraform/plugin/json-state';
import { decodeValue, encodeValue } from '../../../src/terraform/plugin/msgpack-codec';

const str: ValueType = { kind: 'string' };
const obj: ValueType = {
  kind: 'object',
  attributes: { name: str, n: { kind: 'number' }, tags: { kind: 'set', element: str }, labels: { kind: 'map', element: str }, any: { kind: 'dynamic' } },
};

describe('cty msgpack codec', () => {
  it('round-trips nested values, nulls and unknowns', () => {
    const value = { name: 'a', n: 1.5, tags: ['x', 'y'], labels: { k: 'v' }, any: { deep: [1, 'two'] } };
    expect(decodeValue(encodeValue(value, obj), obj)).toEqual(value);
    const partial: Value = { name: UNKNOWN, n: null, tags: UNKNOWN, labels: null, any: UNKNOWN };
    expect(decodeValue(encodeValue(partial, obj), obj)).toEqual(partial);
  });

  it('fills attributes missing on the wire with null', () => {
    expect(decodeValue(encode({ name: 'a' }), obj)).toEqual({ name: 'a', n: null, tags: null, labels: null, any: null });
  });

  it('decodes a refined unknown (extension 12 with a payload) as UNKNOWN', () => {
    const refined = new ExtData(12, encode({ 1: false, 2: 'pre' }));
    expect(decodeValue(encode({ name: refined }), obj)).toMatchObject({ name: UNKNOWN });
  });

  it('decodes numbers cty sends as strings, and dynamic [type, value] pairs', () => {
    expect(decodeValue(encode({ n: '12345678901234567890' }), obj)).toMatchObject({ n: Number('12345678901234567890') });
    const dyn = encode({ any: [new TextEncoder().encode('["list","string"]'), ['a', 'b']] });
    expect(decodeValue(dyn, obj)).toMatchObject({ any: ['a', 'b'] });
  });

  it('implies map/set/list/single nested object types', () => {
    const t = attributeType({ nested: { nesting: 'map', attributes: { a: { type: str, optional: true } } } });
    expect(t).toEqual({ kind: 'map', element: { kind: 'object', attributes: { a: str } } });
    const v: Value = { r1: { a: 'x' }, r2: { a: UNKNOWN } };
    expect(decodeValue(encodeValue(v, t), t)).toEqual(v);
  });

  it('reads the JSON state form, dynamic values included, dropping removed attributes', () => {
    const json = JSON.stringify({ name: 'a', gone: 1, any: { value: 'x', type: 'string' }, tags: ['t'] });
    expect(decodeJsonState(json, obj)).toEqual({ name: 'a', n: null, tags: ['t'], labels: null, any: 'x' });
  });

  it('names the attribute of a type mismatch', () => {
    expect(() => encodeValue({ name: 3 }, obj)).toThrow('name: expected a string');
  });
});

test('a value of the wrong type deep inside names its path, and the next call starts from the root again', () => {
  const t: ValueType = {
    kind: 'object',
    attributes: { roles: { kind: 'map', element: { kind: 'object', attributes: { token_ttl: { kind: 'string' }, cidrs: { kind: 'list', element: { kind: 'string' } } } } } },
  };
  const bad = encode({ roles: { web: { token_ttl: '1h', cidrs: ['a', 7] } } });
  expect(() => decodeValue(bad, t)).toThrow('roles.web.cidrs.1: expected a string');
  expect(() => encodeValue({ roles: { web: { token_ttl: 5, cidrs: null } } }, t)).toThrow('roles.web.token_ttl: expected a string');
  expect(() => decodeValue(encode({ roles: 3 }), t)).toThrow('roles: expected a map');
  expect(() => decodeJsonState(JSON.stringify({ roles: { web: { token_ttl: true } } }), t)).toThrow('state.roles.web.token_ttl: expected a string');
  expect(decodeJsonState(JSON.stringify({ roles: { web: { token_ttl: '1h', cidrs: ['a'] } } }), t)).toEqual({ roles: { web: { token_ttl: '1h', cidrs: ['a'] } } });
});
