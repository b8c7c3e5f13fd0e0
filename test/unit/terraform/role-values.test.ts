// Role canonicalization and validation are memoized per (name, values) within the provider process:
// the same role asked for again gets the very same (frozen) fields; failures are never remembered.

import { emptyRole, roleCanonical, validateRole } from '../../../src/terraform/resources/role-values';
import type { ObjectValue } from '../../../src/terraform/plugin/contract';

const iam = (over: ObjectValue = {}): ObjectValue => ({ ...emptyRole(), type: 'iam', bound_service_accounts: ['a@p.iam.gserviceaccount.com'], ...over });
const base = (name: string) => ['roles', { key: name }];

describe('roleCanonical', () => {
  it('returns the same frozen fields for the same role, and equal fields for another spelling', () => {
    const a = roleCanonical('web', iam({ token_ttl: '1h' }));
    expect(roleCanonical('web', iam({ token_ttl: '1h' }))).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.isFrozen(a.bound_service_accounts)).toBe(true);
    expect(() => {
      (a as Record<string, unknown>).token_ttl = 1;
    }).toThrow(TypeError);
    const b = roleCanonical('web', iam({ token_ttl: '3600s' }));
    expect(b).not.toBe(a);
    expect(b).toEqual(a);
    expect(a.token_ttl).toBe(3600);
  });

  it('throws for an invalid role every time (a failure is not remembered)', () => {
    const bad = iam({ token_ttl: 'soon' });
    expect(() => roleCanonical('bad', bad)).toThrow(/token_ttl/);
    expect(() => roleCanonical('bad', bad)).toThrow(/token_ttl/);
  });
});

describe('validateRole', () => {
  it('reports an invalid role on every call and a valid one never', () => {
    const bad = iam({ token_ttl: 'soon' });
    const first = validateRole(base('bad'), 'bad', bad);
    expect(first.length).toBeGreaterThan(0);
    expect(validateRole(base('bad'), 'bad', bad)).toEqual(first);
    expect(validateRole(base('ok'), 'ok', iam({ token_ttl: '1h' }))).toEqual([]);
    expect(validateRole(base('ok'), 'ok', iam({ token_ttl: '1h' }))).toEqual([]);
  });

  it('a field that does not apply to the role type is still an error after the same name was valid', () => {
    expect(validateRole(base('x'), 'x', iam())).toEqual([]);
    const wrong = validateRole(base('x'), 'x', iam({ bound_zones: ['europe-west1-b'] }));
    expect(wrong.map((d) => d.summary).join('\n')).toMatch(/bound_zones/);
  });
});
