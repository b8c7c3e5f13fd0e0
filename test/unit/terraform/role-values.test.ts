// Role canonicalization and validation are memoized per (name, values) within the provider process:
// the same role asked for again gets the very same (frozen) fields; failures are never remembered.

import { appliedRole, emptyRole, planRole, refreshRole, roleCanonical, roleDecisionOf, validateRole } from '../../../src/terraform/resources/role-values';
import { UNKNOWN } from '../../../src/terraform/plugin/contract';
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

// One diagnostic per failing value, on that value's path, all of them at once (the server's rules
// report (field, message) pairs; nothing is blamed on a field by trying it alone).
describe('validateRole: exact diagnostics', () => {
  const paths = (ds: { attribute?: unknown[] }[]) => ds.map((d) => JSON.stringify(d.attribute)).sort();
  const at = (name: string, field: string) => JSON.stringify(['roles', { key: name }, field]);

  it('an iam role whose only bad value is max_jwt_exp gets one error, on max_jwt_exp, with the value', () => {
    for (const jwt of ['2h', '3601', '90m']) {
      const ds = validateRole(base('r1'), 'r1', iam({ max_jwt_exp: jwt, token_ttl: '1h', token_bound_cidrs: ['10.0.0.0/8'], token_type: 'service' }));
      expect(paths(ds)).toEqual([at('r1', 'max_jwt_exp')]);
      expect(ds[0]!.summary).toContain('max_jwt_exp cannot be more than 60 minutes');
      expect(ds[0]!.detail).toContain(JSON.stringify(jwt));
    }
  });

  it('every bad value of a role at once, each on its own field; valid ones get nothing', () => {
    const ds = validateRole(
      base('r2'),
      'r2',
      iam({ max_jwt_exp: '2h', token_ttl: 'soon', token_bound_cidrs: ['10.0.0.999'], token_type: 'sometimes', token_num_uses: -1, token_policies: ['ok'] }),
    );
    expect(paths(ds)).toEqual(['max_jwt_exp', 'token_bound_cidrs', 'token_num_uses', 'token_ttl', 'token_type'].map((f) => at('r2', f)).sort());
  });

  it('a rule between fields sits on one and names the other with both values', () => {
    const ds = validateRole(base('r3'), 'r3', iam({ token_ttl: '3h', token_max_ttl: '2h' }));
    expect(paths(ds)).toEqual([at('r3', 'token_ttl')]);
    expect(ds[0]!.detail).toMatch(/token_max_ttl.*token_ttl = "3h".*token_max_ttl = "2h"/s);
    const batch = validateRole(base('r4'), 'r4', iam({ token_type: 'batch', token_period: '1h' }));
    expect(paths(batch)).toEqual([at('r4', 'token_type')]);
    expect(batch[0]!.detail).toContain('token_period');
  });

  it('skips values not known yet, and rules that involve them; checks the known ones', () => {
    expect(validateRole(base('u'), 'u', iam({ bound_service_accounts: UNKNOWN, max_jwt_exp: '30m' }))).toEqual([]);
    expect(paths(validateRole(base('u'), 'u', iam({ token_max_ttl: UNKNOWN, token_ttl: '3h', max_jwt_exp: '2h' })))).toEqual([at('u', 'max_jwt_exp')]);
    expect(validateRole(base('u'), 'u', { ...iam(), type: UNKNOWN, max_jwt_exp: '2h' })).toEqual([]);
  });
});

// A field a role leaves null means the server default and stays null in plan and state (so plans
// print only what is declared); drift on it reads back as the live value and plans back to null.
describe('null = server default', () => {
  const live = (over: Record<string, unknown> = {}) => ({
    type: 'iam',
    role_id: 'id-1',
    bound_service_accounts: ['a@p.iam.gserviceaccount.com'],
    max_jwt_exp: 900,
    token_ttl: 0,
    token_policies: [],
    add_group_aliases: false,
    allow_vm_inference: true,
    ...over,
  });

  it('a new role plans only its declared fields, and reads back the same after create', () => {
    const config = iam({ token_ttl: '1h' });
    const planned = planRole('web', config, undefined);
    expect(planned).toEqual({ ...config, role_id: UNKNOWN });
    expect(planned.max_jwt_exp).toBeNull();
    expect(roleDecisionOf('web', undefined, planned)).toMatchObject({ action: 'create', body: { token_ttl: 3600, max_jwt_exp: 900, allow_vm_inference: true } });
    const state = appliedRole(planned, 'id-1');
    expect(refreshRole('web', state, live({ token_ttl: 3600 }))).toEqual(state);
  });

  it('an import (no prior) keeps defaults null and the rest in the live spelling', () => {
    const r = refreshRole('web', undefined, live({ token_ttl: 3600 }));
    expect(r).toMatchObject({ token_ttl: '3600', max_jwt_exp: null, allow_vm_inference: null, token_policies: null, add_group_aliases: null });
  });

  it('drift on an undeclared field shows the live value; the plan puts it back to null and writes the default', () => {
    const state = appliedRole(planRole('web', iam(), undefined), 'id-1');
    const drifted = refreshRole('web', state, live({ token_max_ttl: 86400 }));
    expect(drifted.token_max_ttl).toBe('86400');
    const planned = planRole('web', iam(), drifted);
    expect(planned.token_max_ttl).toBeNull();
    expect(roleDecisionOf('web', drifted, planned)).toEqual({ action: 'update', body: { token_max_ttl: 0 }, changed: ['token_max_ttl'] });
  });

  it('an explicitly declared default is kept in its spelling; removing it from the config writes nothing', () => {
    const state = appliedRole(planRole('web', iam({ max_jwt_exp: '15m' }), undefined), 'id-1');
    expect(refreshRole('web', state, live()).max_jwt_exp).toBe('15m');
    const planned = planRole('web', iam(), state);
    expect(planned.max_jwt_exp).toBeNull();
    expect(roleDecisionOf('web', state, planned)).toEqual({ action: 'no-op', changed: [] });
  });

  it('a declared field changed out of band to the default reads back as the live value, not null', () => {
    const state = appliedRole(planRole('web', iam({ token_ttl: '2h' }), undefined), 'id-1');
    expect(refreshRole('web', state, live()).token_ttl).toBe('0');
  });
});
