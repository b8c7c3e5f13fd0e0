import { issueTtl, renewTtl, SYSTEM_MAX_TTL } from '../../../../src/engine/token/lifetime';

const base = { ttl: 0, maxTtl: 0, explicitMaxTtl: 0, period: 0 };
const H = 3600;

it('issues the TTL, the system default, or the period, capped', () => {
  expect(issueTtl({ ...base, ttl: H })).toEqual({ ttl: H, capped: false });
  expect(issueTtl(base).ttl).toBe(SYSTEM_MAX_TTL);
  expect(issueTtl({ ...base, ttl: 3 * H, maxTtl: H })).toEqual({ ttl: H, capped: true });
  expect(issueTtl({ ...base, ttl: 3 * H, explicitMaxTtl: 2 * H })).toEqual({ ttl: 2 * H, capped: true });
  expect(issueTtl({ ...base, ttl: 5, period: H }).ttl).toBe(H);
  expect(issueTtl({ ...base, period: 2 * H, explicitMaxTtl: H }).ttl).toBe(H);
});

it('renews within the max TTL measured from creation', () => {
  const created = 0;
  expect(renewTtl({ ...base, ttl: H, maxTtl: 3 * H }, created, 2.5 * H * 1000, 0)).toBe(0.5 * H);
  expect(renewTtl({ ...base, ttl: H, maxTtl: 3 * H }, created, 3 * H * 1000, 0)).toBe(0);
  expect(renewTtl({ ...base, ttl: H }, created, H * 1000, 2 * H)).toBe(2 * H);
  expect(renewTtl({ ...base, period: H }, created, 10000 * H * 1000, 0)).toBe(H);
  expect(renewTtl({ ...base, period: H, explicitMaxTtl: 5 * H }, created, 4.5 * H * 1000, 0)).toBe(0.5 * H);
});
