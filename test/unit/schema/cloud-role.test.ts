// Role wire rules: field table, parse through the zod shapes, create defaults, merge, deprecated
// aliases, cross-type refusal, validation, edits and the canonical read form.

import { parseFields } from '../../../src/schema/fields';
import { ROLE_FIELDS, TYPE_ONLY_FIELDS, parseLabels, roleWriteShape, zoneToRegion } from '../../../src/schema/cloud-role';
import { applyLabelEdit, applyRoleWrite, applyServiceAccountEdit, canonicalRoleRead, roleReadShape } from '../../../src/schema/cloud-role-write';
import { ApiError } from '../../../src/schema/errors';

const write = (body: Record<string, unknown>, existing?: Parameters<typeof applyRoleWrite>[0]) =>
  applyRoleWrite(existing, parseFields(roleWriteShape, body).values, { newRoleId: 'rid' });

function errorText(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (ApiError.isApiError(e)) return e.errors[0];
    throw e;
  }
  throw new Error('expected an ApiError');
}

describe('role field table', () => {
  it('marks type-only fields consistently with the table', () => {
    for (const [type, names] of Object.entries(TYPE_ONLY_FIELDS)) {
      for (const n of names) expect(ROLE_FIELDS.find((f) => f.name === n)?.appliesTo).toBe(type);
    }
    expect(ROLE_FIELDS.filter((f) => f.aliasOf).map((f) => f.name)).toEqual(
      expect.arrayContaining(['policies', 'ttl', 'max_ttl', 'period', 'service_accounts', 'project_id', 'bound_zone']),
    );
  });
  it('parses labels and regions', () => {
    expect(parseLabels(['env:dev', 'a-b:', 'env:prod', 'Bad:x', 'nocolon'])).toEqual({ labels: { env: 'prod', 'a-b': '' }, invalid: ['Bad:x', 'nocolon'] });
    expect(zoneToRegion('us-east1-b')).toBe('us-east1');
  });
});

describe('applyRoleWrite', () => {
  it('fills create defaults', () => {
    const { role } = write({ type: 'vm' });
    expect(roleReadShape(role)).toEqual({
      role_id: 'rid',
      type: 'vm',
      add_group_aliases: false,
      token_policies: [],
      token_ttl: 0,
      token_max_ttl: 0,
      token_explicit_max_ttl: 0,
      token_period: 0,
      token_num_uses: 0,
      token_no_default_policy: false,
      token_bound_cidrs: [],
      token_type: 'default',
    });
  });
  it('merges updates and folds singular vm fields into plurals', () => {
    const first = write({ type: 'vm', bound_zones: 'b,a,a', bound_labels: ['x:1'] }).role;
    const next = write({ bound_region: 'us-east1', bound_labels: 'y:2' }, first).role;
    expect(next.bound_zones).toEqual(['a', 'b']);
    expect(next.bound_regions).toEqual(['us-east1']);
    expect(next.bound_labels).toEqual({ y: '2' });
    expect(errorText(() => write({ bound_zone: 'a', bound_zones: 'b' }, first))).toBe('cannot specify both "bound_zone" and "bound_zones"');
  });
  it('maps project_id and service_accounts aliases', () => {
    const { role } = write({ type: 'iam', service_accounts: 'a@x', project_id: 'p1' });
    expect(role.bound_service_accounts).toEqual(['a@x']);
    expect(role.bound_projects).toEqual(['p1']);
    expect(errorText(() => write({ type: 'iam', service_accounts: 'a', project_id: 'p', bound_projects: 'q' }))).toMatch(/only one of 'bound_projects' or 'project_id'/);
  });
  it('refuses other-type fields by presence, listing them', () => {
    expect(errorText(() => write({ type: 'iam', bound_service_accounts: 'a', bound_labels: '', bound_regions: [] }))).toMatch(
      /invalid args found for role of type iam: bound_regions,bound_labels/,
    );
  });
  it('refuses token_num_uses with batch tokens and negative uses', () => {
    expect(errorText(() => write({ type: 'vm', token_type: 'batch', token_num_uses: 2 }))).toMatch(/limited use count/);
    expect(errorText(() => write({ type: 'vm', token_num_uses: -1 }))).toMatch(/cannot be negative/);
  });
  it('canonicalRoleRead fills server defaults for diffs', () => {
    expect(canonicalRoleRead({ type: 'iam', bound_service_accounts: ['b', 'a'], token_ttl: 60 })).toMatchObject({
      bound_service_accounts: ['a', 'b'],
      max_jwt_exp: 900,
      allow_vm_inference: true,
      token_ttl: 60,
      token_type: 'default',
    });
  });
});

describe('edits', () => {
  const iam = write({ type: 'iam', bound_service_accounts: 'a' }).role;
  const vm = write({ type: 'vm', bound_labels: 'k:v' }).role;
  it('edits service accounts with sorted results and re-validation', () => {
    expect(applyServiceAccountEdit(iam, ['c', 'b'], ['a']).role.bound_service_accounts).toEqual(['b', 'c']);
    expect(errorText(() => applyServiceAccountEdit(iam, ['*'], []))).toMatch(/wildcard/);
    expect(errorText(() => applyServiceAccountEdit(vm, ['x'], []))).toMatch(/role is type 'vm'/);
  });
  it('edits labels; removing a missing key is fine; bad labels are named', () => {
    expect(applyLabelEdit(vm, [], ['missing']).role.bound_labels).toEqual({ k: 'v' });
    expect(errorText(() => applyLabelEdit(vm, ['K:v'], []))).toMatch(/given invalid labels to add: \["K:v"\]/);
    expect(errorText(() => applyLabelEdit(vm, [], []))).toMatch(/at least one value/);
  });
});
