// Write rules report (field, message) pairs: every problem when asked to collect (the provider's
// validation), only the first, with Vault's text, when not (the engine answering a request).

import { canonicalRoleRead } from '../../../src/schema/cloud-role-write';
import { FieldProblemsError, fieldProblemsOf } from '../../../src/schema/field-problems';
import { validateSnapshotConfigWrite } from '../../../src/schema/snapshot-validate';
import { parseFields } from '../../../src/schema/fields';
import { roleWriteShape } from '../../../src/schema/cloud-role';
import { desiredRoleFields, ManifestValueError } from '../../../src/reconcile/canonical';

const fieldsOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (fieldProblemsOf(e) ?? []).map((p) => [p.field, ...(p.related ?? [])].join('+')).sort();
  }
  return [];
};

describe('field problems', () => {
  it('a role: every broken rule with its field when collecting; the first, unchanged, when not', () => {
    const values = parseFields(roleWriteShape, { type: 'iam', max_jwt_exp: '2h', token_type: 'weird', token_bound_cidrs: ['1.2.3.999'] }).values;
    expect(fieldsOf(() => canonicalRoleRead(values, '', []))).toEqual(['bound_service_accounts', 'max_jwt_exp', 'token_bound_cidrs', 'token_type']);
    expect(() => canonicalRoleRead(values)).toThrow(/^field "token_bound_cidrs": invalid CIDR/);
    expect(() => canonicalRoleRead(values)).not.toThrow(FieldProblemsError);
  });

  it('a desired role: coercion failures and rule failures together, through ManifestValueError', () => {
    let err: unknown;
    try {
      desiredRoleFields('roles["x"]', { name: 'x', type: 'iam', bound_service_accounts: ['a'], token_ttl: 'soon', max_jwt_exp: '2h' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ManifestValueError);
    expect((fieldProblemsOf(err) ?? []).map((p) => p.field).sort()).toEqual(['max_jwt_exp', 'token_ttl']);
  });

  it('a snapshot config: each problem names its field; the engine still gets every message', () => {
    const body = {
      storage_type: 'cloudone-store',
      interval: '0s',
      retain: 0,
      path_prefix: 'p/',
      cloudone_bucket: 'a/b',
      cloudone_region: 'r',
      cloudone_enable_kms: true,
      cloudone_server_side_encryption: true,
    };
    // A "/" in the bucket name is a rule of the engine only (Vault accepts it).
    expect(fieldsOf(() => validateSnapshotConfigWrite(body))).toEqual(['cloudone_enable_kms+cloudone_server_side_encryption', 'interval', 'retain']);
    expect(fieldsOf(() => validateSnapshotConfigWrite(body, { engineRules: true }))).toEqual([
      'cloudone_bucket',
      'cloudone_enable_kms+cloudone_server_side_encryption',
      'interval',
      'retain',
    ]);
  });
});
