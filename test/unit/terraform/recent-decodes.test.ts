// The provider decodes a value Terraform sends again (the config to validate, plan and apply; the
// prior to plan and apply) once: same bytes and resource type → the same frozen value.
import { RecentDecodes } from '../../../src/terraform/plugin/recent-decodes';

/** A decode that counts its calls and returns a new value each time. */
function counting(): { calls: number; decode: () => never } {
  const c = { calls: 0, decode: () => ({ n: ++c.calls }) as never };
  return c;
}

test('same bytes of the same type decode once; values are frozen deep; the oldest is dropped past max', () => {
  const r = new RecentDecodes({ min: 2, max: 2 });
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

test('small values: up to max kept (the calls of ten resources interleave); large ones: min kept, then a byte budget', () => {
  let c = counting();
  const small = new RecentDecodes({ min: 4, max: 64, maxBytes: 1024 });
  for (let i = 0; i < 64; i++) small.decode('t', Buffer.from(`v${i}`), c.decode);
  expect(c.calls).toBe(64);
  for (let i = 0; i < 64; i++) small.decode('t', Buffer.from(`v${i}`), c.decode); // all still there
  expect(c.calls).toBe(64);
  small.decode('t', Buffer.from('v64'), c.decode); // the 65th drops the oldest
  small.decode('t', Buffer.from('v0'), c.decode);
  expect(c.calls).toBe(66);

  c = counting();
  const large = new RecentDecodes({ min: 2, max: 64, maxBytes: 1024 });
  const big = (fill: string) => Buffer.alloc(800, fill);
  for (const fill of 'abc') large.decode('t', big(fill), c.decode); // 2,400 bytes: only the newest 2 (min) stay
  expect(c.calls).toBe(3);
  large.decode('t', big('c'), c.decode);
  large.decode('t', big('b'), c.decode);
  expect(c.calls).toBe(3);
  large.decode('t', big('a'), c.decode); // dropped: over the byte budget beyond min
  expect(c.calls).toBe(4);
  // Same length, other bytes: a miss, never a wrong hit.
  large.decode('t', Buffer.alloc(800, 'z'), c.decode);
  expect(c.calls).toBe(5);
});

test('values past the keyed size are found by comparison, and evicted keys are forgotten', () => {
  let c = counting();
  const r = new RecentDecodes({ min: 1, max: 3, maxBytes: 100 * 1024 });
  const huge = (fill: string) => Buffer.alloc(40 * 1024, fill); // larger than a keyed value
  const a = r.decode('t', huge('a'), c.decode);
  expect(r.decode('t', huge('a'), c.decode)).toBe(a);
  expect(r.decode('other', huge('a'), c.decode)).not.toBe(a); // another resource type
  r.decode('t', huge('b'), c.decode);
  expect(c.calls).toBe(3);
  r.decode('t', Buffer.alloc(40 * 1024, 'z'), c.decode); // same length, other bytes: a miss
  expect(c.calls).toBe(4);

  // Keyed and compared values side by side; a small value dropped by max is decoded again.
  c = counting();
  const mixed = new RecentDecodes({ min: 1, max: 2, maxBytes: 1024 * 1024 });
  mixed.decode('t', Buffer.from('s1'), c.decode);
  mixed.decode('t', huge('h'), c.decode);
  mixed.decode('t', Buffer.from('s2'), c.decode); // drops s1
  mixed.decode('t', huge('h'), c.decode);
  mixed.decode('t', Buffer.from('s2'), c.decode);
  expect(c.calls).toBe(3);
  mixed.decode('t', Buffer.from('s1'), c.decode);
  expect(c.calls).toBe(4);
});
