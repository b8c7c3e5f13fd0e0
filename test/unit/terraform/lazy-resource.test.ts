// lazyResource forwards every RPC to the handler it loads once, and refuses a handler that is not
// the one its up-front schema describes.

import type { ResourceHandler } from '../../../src/terraform/plugin/contract';
import { lazyResource } from '../../../src/terraform/plugin/lazy-resource';

const schema = { version: 0, attributes: { name: { type: { kind: 'string' as const }, required: true } } };

function real(typeName = 't_x', s = schema): ResourceHandler<string> {
  return {
    typeName,
    schema: s,
    validate: (c) => (c.name === 'bad' ? [{ severity: 'error', summary: 'bad name' }] : []),
    read: async (p, state) => ({ state: { ...state, by: p } }),
    plan: async (_p, req) => ({ planned: req.config }),
    apply: async (_p, req) => ({ state: req.planned }),
    import: async (_p, id) => ({ name: id }),
  };
}

it('loads once, on the first RPC, and forwards each RPC', async () => {
  let loads = 0;
  const h = lazyResource('t_x', schema, () => (loads++, real()));
  expect(h.schema).toBe(schema);
  expect(loads).toBe(0);
  expect(h.validate!({ name: 'bad' })).toEqual([{ severity: 'error', summary: 'bad name' }]);
  expect(await h.read('p', { name: 'a' })).toEqual({ state: { name: 'a', by: 'p' } });
  expect(await h.plan('p', { prior: null, proposed: { name: 'a' }, config: { name: 'a' } })).toEqual({ planned: { name: 'a' } });
  expect(await h.apply('p', { prior: null, planned: { name: 'a' }, config: { name: 'a' } })).toEqual({ state: { name: 'a' } });
  expect(await h.import('p', 'x')).toEqual({ name: 'x' });
  expect(loads).toBe(1);
});

it('refuses a loaded handler of another type or schema', () => {
  expect(() => lazyResource('t_x', schema, () => real('t_y')).validate!({})).toThrow(/t_x/);
  expect(() => lazyResource('t_x', schema, () => real('t_x', { ...schema })).validate!({})).toThrow(/another schema/);
});
