// The spelling rules that keep equivalent values from planning: canonical comparison decides,
// the prior spelling wins when equal, a null config plans the server default in its own spelling.

import { UNKNOWN } from '../../../src/terraform/plugin/contract';
import { planRole, refreshRole, roleDecisionOf } from '../../../src/terraform/resources/role-values';
import { plannedSpelling, refreshedSpelling, showPath } from '../../../src/terraform/resources/values';

test('plannedSpelling: prior when equal, config when different, default when null, unknown stays unknown', () => {
  expect(plannedSpelling('duration', '3600', '1h', 3600, 3600)).toBe('1h');
  expect(plannedSpelling('duration', '2h', '1h', 7200, 3600)).toBe('2h');
  expect(plannedSpelling('duration', null, '5', 0, 5)).toBe('0');
  expect(plannedSpelling('duration', null, '0s', 0, 0)).toBe('0s');
  expect(plannedSpelling('duration', UNKNOWN, '1h', undefined, 3600)).toBe(UNKNOWN);
  expect(refreshedSpelling('set', ['10.0.0.1/32'], ['10.0.0.1/32'], ['10.0.0.1/32'])).toEqual(['10.0.0.1/32']);
  expect(refreshedSpelling('duration', '1h', 3600, 60)).toBe('60');
});

test('roles: equal spellings plan the prior; only changed fields are written; type change replaces', () => {
  const prior = refreshRole('web', undefined, { type: 'iam', role_id: 'id-1', bound_service_accounts: ['a@b'], token_ttl: 3600, token_bound_cidrs: ['10.0.0.1'] });
  const config = { ...prior, role_id: null, token_ttl: '1h', token_bound_cidrs: ['10.0.0.1/32'] };
  const planned = planRole('web', config, prior);
  expect(planned).toEqual(prior);
  expect(roleDecisionOf('web', prior, planned)).toEqual({ action: 'no-op', changed: [] });
  const changed = planRole('web', { ...config, token_ttl: '2h' }, prior);
  expect(roleDecisionOf('web', prior, changed)).toEqual({ action: 'update', body: { token_ttl: 7200 }, changed: ['token_ttl'] });
  const vm = planRole('web', { ...config, type: 'vm', allow_vm_inference: null, max_jwt_exp: null }, prior);
  expect(vm.role_id).toBe(UNKNOWN);
  expect(roleDecisionOf('web', prior, vm).action).toBe('replace');
});

test('paths render as Terraform prints them', () => {
  expect(showPath(['roles', { key: 'web' }, 'token_ttl'])).toBe('roles["web"].token_ttl');
});
