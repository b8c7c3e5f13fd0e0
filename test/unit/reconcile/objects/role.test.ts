// The role's one decision (src/reconcile/objects/role.ts), which the CLI's diff/apply and the
// provider's role resources all call: action, write body, and the order of a replace's requests.

import { applyRoleDecision, roleDecision, roleDeletion, roleServerProblem, roleWriteFor, VM_WILDCARD_LOCKOUT, type RoleWriter } from '../../../../src/reconcile/objects/role';

const vm = { type: 'vm', bound_labels: { a: '1' }, token_ttl: 60 };

test('create and replace send the whole role (labels as key:value); an update only the changed fields', () => {
  expect(roleDecision(undefined, vm)).toEqual({ action: 'create', changed: ['type', 'bound_labels', 'token_ttl'], body: { type: 'vm', bound_labels: ['a:1'], token_ttl: 60 } });
  expect(roleDecision({ ...vm, token_ttl: 0 }, vm)).toEqual({ action: 'update', changed: ['token_ttl'], body: { token_ttl: 60 } });
  expect(roleDecision({ ...vm, type: 'iam' }, vm)).toMatchObject({ action: 'replace', body: { type: 'vm', bound_labels: ['a:1'], token_ttl: 60 } });
  expect(roleDecision(vm, { ...vm, bound_labels: { a: '1' } })).toEqual({ action: 'no-op', changed: [] });
  expect(roleDecision(vm, undefined)).toEqual({ action: 'delete', changed: [] });
});

test("a planned action's write is the decision's: the CLI's apply and the provider send the same body", () => {
  expect(roleWriteFor('update', vm, ['token_ttl'])).toEqual(roleDecision({ ...vm, token_ttl: 0 }, vm));
  expect(roleWriteFor('create', vm, [])).toEqual(roleDecision(undefined, vm));
});

test('a replace deletes before it creates; a delete sends no write', async () => {
  const calls: string[] = [];
  const api: RoleWriter = {
    deleteRole: async (n) => void calls.push(`delete ${n}`),
    writeRole: async (n, b) => (calls.push(`write ${n} ${JSON.stringify(b)}`), ['w']),
  };
  expect(await applyRoleDecision(api, 'r', roleDecision({ ...vm, type: 'iam' }, vm))).toEqual(['w']);
  expect(await applyRoleDecision(api, 'r', roleDeletion())).toEqual([]);
  expect(await applyRoleDecision(api, 'r', roleDecision(vm, vm))).toEqual([]);
  expect(calls).toEqual(['delete r', `write r ${JSON.stringify({ type: 'vm', bound_labels: ['a:1'], token_ttl: 60 })}`, 'delete r']);
});

describe('vm `*` toward Vault and OpenBao (authorizer_gce.go compares literally): one decision', () => {
  const star = { type: 'vm', bound_service_accounts: ['*'] };
  test('writing it is refused, naming the lock-out and the field', () => {
    expect(roleServerProblem('vault', undefined, star)).toEqual({ severity: 'error', field: 'bound_service_accounts', message: VM_WILDCARD_LOCKOUT });
    expect(roleServerProblem('vault', { type: 'vm', bound_service_accounts: ['a@p.iam.gserviceaccount.com'] }, star)?.severity).toBe('error');
    expect(roleServerProblem('vault', { type: 'iam', bound_service_accounts: ['*'] }, star)?.severity).toBe('error');
    expect(VM_WILDCARD_LOCKOUT).toBe('on Vault and OpenBao `*` on a vm role is a literal: no VM matches; list the service accounts');
  });
  test('a role the server already holds with it is warned, not refused', () => {
    expect(roleServerProblem('vault', star, { ...star, token_ttl: 60 })).toMatchObject({ severity: 'warning', message: expect.stringContaining(VM_WILDCARD_LOCKOUT) });
  });
  test('the engine keeps the seed (`*` allows any VM); iam `*` and listed accounts are fine everywhere', () => {
    expect(roleServerProblem('keyward', undefined, star)).toBeUndefined();
    expect(roleServerProblem('vault', undefined, { type: 'iam', bound_service_accounts: ['*'] })).toBeUndefined();
    expect(roleServerProblem('vault', undefined, { type: 'vm', bound_service_accounts: ['a@p.iam.gserviceaccount.com'] })).toBeUndefined();
    expect(roleServerProblem('vault', star, undefined)).toBeUndefined();
  });
});
