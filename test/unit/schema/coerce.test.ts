import { coerceBool, coerceCommaList, coerceInt, coerceKvMap, coerceString } from '../../../src/schema/coerce';
import { field, parseFields } from '../../../src/schema/fields';
import { ApiError } from '../../../src/schema/errors';

it('coerces like Vault framework fields', () => {
  expect(coerceString(12)).toBe('12');
  expect(() => coerceString({})).toThrow();
  expect([true, 't', '1', 'TRUE', 1].map(coerceBool)).toEqual([true, true, true, true, true]);
  expect([false, 'f', '0', '', 0, null].map(coerceBool)).toEqual([false, false, false, false, false, false]);
  expect(() => coerceBool('yes')).toThrow(/ParseBool/);
  expect(coerceInt('42')).toBe(42);
  expect(() => coerceInt(1.5)).toThrow(/integer/);
  expect(coerceCommaList('a, b ,c')).toEqual(['a', 'b', 'c']);
  expect(coerceCommaList(['a,b', ' c '])).toEqual(['a,b', 'c']);
  expect(coerceCommaList('')).toEqual([]);
  expect(coerceKvMap({ api: 'http://x' })).toEqual({ api: 'http://x' });
  expect(coerceKvMap(['api=http://x=y'])).toEqual({ api: 'http://x=y' });
  expect(() => coerceKvMap(['=v'])).toThrow(/invalid key pair/);
});

it('parseFields reports present and unknown fields and fails with Vault text', () => {
  const shape = { ttl: field.duration(), name: field.string() };
  const r = parseFields(shape, { ttl: '1h', extra: 1, other: 2 });
  expect(r.values).toEqual({ ttl: 3600 });
  expect([...r.present]).toEqual(['ttl']);
  expect(r.unknown).toEqual(['extra', 'other']);
  try {
    parseFields(shape, { ttl: 'soon' });
    throw new Error('expected failure');
  } catch (e) {
    expect(ApiError.isApiError(e)).toBe(true);
    expect((e as ApiError).status).toBe(400);
    expect((e as ApiError).errors[0]).toMatch(/^Field validation failed: error converting input soon for field "ttl": time: invalid duration/);
  }
});
