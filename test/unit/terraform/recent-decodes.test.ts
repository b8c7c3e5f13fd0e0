// The provider decodes a value Terraform sends again (the config to validate, plan and apply; the
// prior to plan and apply) once: same bytes and resource type → the same frozen value.
import { RecentDecodes } from '../../../src/terraform/plugin/recent-decodes';

test('same bytes of the same type decode once; values are frozen deep; the oldest is dropped past max', () => {
  const r = new RecentDecodes(2);
  let decodes = 0;
  const decode = (v: unknown) => () => {
    decodes++;
    return structuredClone(v) as never;
  };
  const a = r.decode('t', Buffer.from('aa'), decode({ roles: { web: { token_ttl: '1h', sets: ['x'] } } }));
  expect(r.decode('t', Buffer.from('aa'), decode({}))).toBe(a);
  expect(decodes).toBe(1);
  expect(Object.isFrozen((a as { roles: { web: { sets: string[] } } }).roles.web.sets)).toBe(true);
  expect(() => {
    'use strict';
    (a as { roles: Record<string, unknown> }).roles.other = {};
  }).toThrow(TypeError);

  r.decode('other', Buffer.from('aa'), decode({ other: true })); // another resource type: its own entry
  expect(decodes).toBe(2);
  r.decode('t', Buffer.from('bb'), decode({ b: 1 }));
  expect(decodes).toBe(3);
  r.decode('t', Buffer.from('aa'), decode({})); // evicted (max 2): decoded again
  expect(decodes).toBe(4);
});
