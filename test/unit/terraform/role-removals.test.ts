// The warnings a backend plan carries for the roles it removes (Terraform shows these as an update).

import { roleRemovalWarnings } from '../../../src/terraform/resources/role-removals';
import { emptyRole } from '../../../src/terraform/resources/role-values';
import type { ObjectValue } from '../../../src/terraform/plugin/contract';

const iam = (over: ObjectValue = {}): ObjectValue => ({ ...emptyRole(), type: 'iam', bound_service_accounts: ['a@p.iam.gserviceaccount.com'], ...over });
const vm = (over: ObjectValue = {}): ObjectValue => ({ ...emptyRole(), type: 'vm', bound_zones: ['europe-west1-b'], ...over });
const summaries = (prior: ObjectValue, config: ObjectValue, declared?: string[]) =>
  roleRemovalWarnings('cloud', prior, config, declared)
    .map((d) => d.summary)
    .sort();

describe('roleRemovalWarnings', () => {
  it('nothing when no role goes', () => {
    expect(summaries({ a: iam() }, { a: iam({ token_ttl: '1h' }), b: vm() })).toEqual([]);
  });

  it('a deleted role, named, with what it costs', () => {
    const [d] = roleRemovalWarnings('cloud', { a: iam(), gone: vm() }, { a: iam() }, ['a', 'gone']);
    expect(d).toMatchObject({ severity: 'warning', summary: 'Role "gone" will be deleted from auth/cloud', detail: expect.stringContaining('stops renewing') });
  });

  it('a rename: same fields under a new name; a different role added beside a deletion is not one', () => {
    expect(summaries({ old: iam({ token_ttl: '1h' }) }, { fresh: iam({ token_ttl: '3600' }) })).toEqual([
      'Role "old" will be deleted and "fresh" created (a rename) on auth/cloud',
    ]);
    expect(summaries({ old: iam({ token_ttl: '1h' }) }, { other: iam({ token_ttl: '2h' }) })).toEqual(['Role "old" will be deleted from auth/cloud']);
  });

  it('a type change is a replace', () => {
    expect(summaries({ r: iam() }, { r: vm() })).toEqual(['Role "r" will be replaced on auth/cloud: type iam -> vm']);
  });

  it('roles never declared (pulled in by an exclusive refresh) are named in one warning on exclusive_roles', () => {
    const ds = roleRemovalWarnings('cloud', { a: iam(), x1: vm(), x2: vm({ bound_zones: ['us-east1-b'] }) }, { a: iam() }, ['a']);
    expect(ds).toEqual([
      expect.objectContaining({ summary: '2 roles "x1", "x2" on auth/cloud will be deleted: not declared, and exclusive_roles is true', attribute: ['exclusive_roles'] }),
    ]);
  });
});
