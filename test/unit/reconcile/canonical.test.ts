// Canonical values: the desired spelling and the server's read of the same meaning compare equal;
// a perpetual diff is a bug with a test here.

import {
  desiredConfigFields,
  desiredRoleFields,
  desiredSnapshotFields,
  isDefaultMetadata,
  finishConfig,
  labelMap,
  liveConfigFields,
  liveRoleFields,
  liveSnapshotFields,
  ManifestValueError,
  roleWriteBody,
} from '../../../src/reconcile/canonical';
import { sameValue } from '../../../src/reconcile/model';

const role = (r: Record<string, unknown>) => desiredRoleFields('auth/cloud/role/x', { name: 'x', ...r });
const iam = { type: 'iam', bound_service_accounts: ['a@p'] };

describe('roles', () => {
  test('durations: strings and seconds are the same', () => {
    expect(role({ ...iam, token_ttl: '1h30m', token_max_ttl: '2h', max_jwt_exp: '10m', token_period: 0 })).toMatchObject({
      token_ttl: 5400,
      token_max_ttl: 7200,
      max_jwt_exp: 600,
      token_period: 0,
    });
    expect(sameValue(role({ ...iam, token_ttl: '1d' }), role({ ...iam, token_ttl: 86400 }))).toBe(true);
  });

  test('comma strings are lists; set-valued lists are order-free and de-duplicated', () => {
    const a = role({ type: 'iam', bound_service_accounts: 'b@p, a@p,a@p', bound_projects: 'p2,p1', token_policies: 'x, y' });
    const b = role({ type: 'iam', bound_service_accounts: ['a@p', 'b@p'], bound_projects: ['p1', 'p2'], token_policies: ['y', 'x'] });
    expect(a).toEqual(b);
    expect(a.bound_service_accounts).toEqual(['a@p', 'b@p']);
  });

  test('host CIDRs equal their /32 or /128; networks are normalized', () => {
    expect(role({ ...iam, token_bound_cidrs: '10.0.0.1, 2001:db8::1' }).token_bound_cidrs).toEqual(['10.0.0.1/32', '2001:db8::1/128']);
    expect(liveRoleFields({ type: 'iam', token_bound_cidrs: ['10.0.0.1/32', '2001:db8::1'] }).token_bound_cidrs).toEqual(['10.0.0.1/32', '2001:db8::1/128']);
    expect(role({ ...iam, token_bound_cidrs: ['192.168.1.7/24'] }).token_bound_cidrs).toEqual(['192.168.1.0/24']);
  });

  test('labels: key:value list, comma string and map are the same; the server reads a map', () => {
    const list = role({ type: 'vm', bound_labels: ['b:2', 'a:1'] });
    const str = role({ type: 'vm', bound_labels: 'a:1,b:2' });
    expect(list).toEqual(str);
    expect(list.bound_labels).toEqual({ a: '1', b: '2' });
    expect(liveRoleFields({ type: 'vm', bound_labels: { b: '2', a: '1' } }).bound_labels).toEqual({ a: '1', b: '2' });
    expect(labelMap('x:1, y:')).toEqual({ x: '1', y: '' });
    expect(roleWriteBody({ bound_labels: { a: '1' } }).bound_labels).toEqual(['a:1']);
  });

  test('absent fields are the server defaults, matching a read that omits empty lists', () => {
    const d = role({ type: 'iam', bound_service_accounts: '*' });
    const live = liveRoleFields({
      role_id: 'uuid',
      type: 'iam',
      bound_service_accounts: ['*'],
      add_group_aliases: false,
      max_jwt_exp: 900,
      allow_vm_inference: true,
      token_policies: [],
      token_ttl: 0,
      token_max_ttl: 0,
      token_explicit_max_ttl: 0,
      token_period: 0,
      token_num_uses: 0,
      token_no_default_policy: false,
      token_bound_cidrs: [],
      token_type: 'default',
      alias_metadata: {},
    });
    expect(live).toEqual(d);
    expect(live.role_id).toBeUndefined();
  });

  test('deprecated aliases fold into token_* and the legacy keys are not compared', () => {
    const old = role({ ...iam, policies: 'B,a', ttl: '1m', max_ttl: 120, period: '0s' });
    expect(old).toMatchObject({ token_policies: ['a', 'b'], token_ttl: 60, token_max_ttl: 120, token_period: 0 });
    expect(old.policies).toBeUndefined();
    expect(liveRoleFields({ type: 'iam', bound_service_accounts: ['a@p'], token_policies: ['a', 'b'], policies: ['a', 'b'], ttl: 60 }).ttl).toBeUndefined();
  });

  test('fields of the other type are refused, naming the role', () => {
    expect(() => role({ type: 'vm', max_jwt_exp: 60 })).toThrow(ManifestValueError);
    expect(() => role({ type: 'vm', max_jwt_exp: 60 })).toThrow(/auth\/cloud\/role\/x: invalid args found for role of type vm: max_jwt_exp/);
    expect(() => role({ type: 'iam' })).toThrow(/at least one service account/);
  });

  test('vm and iam roles carry only their own fields', () => {
    expect(Object.keys(role({ type: 'vm' }))).toEqual(expect.arrayContaining(['bound_zones', 'bound_labels']));
    expect(Object.keys(role({ type: 'vm' }))).not.toContain('max_jwt_exp');
    expect(Object.keys(role(iam))).not.toContain('bound_zones');
  });
});

describe('auth config', () => {
  const cfg = (c: Record<string, unknown>) => desiredConfigFields('auth/cloud/config', c);
  test('absent means defaults, equal to a never-written config read', () => {
    expect(cfg({})).toEqual(
      liveConfigFields({
        iam_metadata: ['project_id', 'role', 'service_account_id', 'service_account_email'],
        vm_metadata: ['instance_creation_timestamp', 'instance_id', 'instance_name', 'project_id', 'project_number', 'role', 'service_account_id', 'service_account_email', 'zone'],
      }),
    );
    expect(cfg({}).iam_alias).toBe('role_id');
  });
  test('metadata lists are sets; "default" is the default list', () => {
    expect(cfg({ iam_metadata: 'role, project_id' }).iam_metadata).toEqual(['project_id', 'role']);
    expect(cfg({ iam_metadata: 'default' })).toEqual(cfg({}));
    expect(isDefaultMetadata('iam_metadata', cfg({}).iam_metadata)).toBe(true);
    expect(isDefaultMetadata('iam_metadata', ['role'])).toBe(false);
    expect(cfg({ vm_metadata: [] }).vm_metadata).toEqual([]);
  });
  test('custom endpoints as a sorted map; credential identifiers are not compared', () => {
    expect(cfg({ custom_endpoint: { iam: 'https://iam.internal', api: 'https://api.internal' } }).custom_endpoint).toEqual({
      api: 'https://api.internal',
      iam: 'https://iam.internal',
    });
    expect(liveConfigFields({ client_email: 'x@y', private_key_id: 'k', iam_alias: '' })).toEqual(cfg({}));
  });
  test('invalid values name the object', () => {
    expect(() => cfg({ custom_endpoint: { nope: 'x' } })).toThrow(/auth\/cloud\/config: invalid custom endpoint type "nope"/);
  });
});

describe('snapshot configs', () => {
  const snap = (c: Record<string, unknown>) => desiredSnapshotFields('snapshot/s', { name: 's', ...c });
  test('interval as seconds, defaults filled, secrets never part of the fields', () => {
    const d = snap({
      storage_type: 'cloudone-store',
      interval: '1h',
      path_prefix: 'p/',
      cloudone_bucket: 'b',
      cloudone_region: 'r',
      cloudone_secret_access_key: { secretRef: { env: 'K' } },
      cloudone_access_key_id: 'AK',
    });
    expect(d).toMatchObject({ interval: 3600, retain: 1, file_prefix: 'vault-snapshot', cloudone_disable_tls: false });
    expect(d.cloudone_secret_access_key).toBeUndefined();
    const live = liveSnapshotFields({
      storage_type: 'cloudone-store',
      interval: 3600,
      retain: 1,
      path_prefix: 'p/',
      file_prefix: 'vault-snapshot',
      cloudone_bucket: 'b',
      cloudone_region: 'r',
      cloudone_access_key_id: 'AK',
    });
    expect(live).toEqual(d);
  });
  test('storage_type is part of the fields (immutable: a replace)', () => {
    expect(snap({ storage_type: 'local', interval: 60, path_prefix: '/x', local_max_space: 10 }).storage_type).toBe('local');
  });
});

test('identity_token_ttl: a stored 0 reads as 0 (Vault stores it only when sent), a declared 1h as 3600', () => {
  expect(finishConfig({ identity_token_ttl: 0 }).identity_token_ttl).toBe(0);
  expect(finishConfig({}).identity_token_ttl).toBe(0);
  expect(finishConfig({ identity_token_ttl: 3600 }).identity_token_ttl).toBe(3600);
});
