// TtlCache: lifetime by the injected clock, bounded size, shared in-flight loads, failures not cached.

import { ManualClock } from '../../../src/engine/clock';
import { TtlCache } from '../../../src/idp-client/cache';

describe('TtlCache', () => {
  it('expires entries by the clock and evicts the oldest beyond the bound', async () => {
    const clock = new ManualClock(0);
    const c = new TtlCache<number>(clock, 2);
    c.set('a', 1, 1000);
    c.set('b', 2, 1000);
    c.set('c', 3, 1000);
    expect(c.get('a')).toBeUndefined();
    expect(c.get('b')).toBe(2);
    await clock.advance(1000);
    expect(c.get('b')).toBeUndefined();
  });

  it('shares one load between concurrent misses and does not cache failures', async () => {
    const c = new TtlCache<string>(new ManualClock(0));
    let loads = 0;
    const load = async () => {
      loads++;
      return { value: 'v', ttlMs: 1000 };
    };
    expect(await Promise.all([c.getOrLoad('k', load), c.getOrLoad('k', load)])).toEqual(['v', 'v']);
    expect(loads).toBe(1);
    await expect(c.getOrLoad('bad', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await c.getOrLoad('bad', load)).toBe('v');
  });
});
