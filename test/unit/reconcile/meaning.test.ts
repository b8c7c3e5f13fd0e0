// Meaning labels (src/reconcile/meaning.ts) over every field of every field table, each kind of change, and the
// value-aware cases a fixed direction per field would get wrong.

import { CONFIG_ACCESS, MOUNT_ACCESS, ROLE_ACCESS, SNAPSHOT_ACCESS, type AccessEffect } from '../../../src/schema/access-effects';
import { MOUNT_FIELDS } from '../../../src/schema/auth-mount-fields';
import { CLOUD_CONFIG_FIELDS } from '../../../src/schema/cloud-config-fields';
import { ROLE_FIELDS } from '../../../src/schema/cloud-role-fields';
import { SNAPSHOT_FIELDS } from '../../../src/schema/snapshot-fields';
import { KNOWN_AFTER_APPLY, labelsOf, meaningsOf, type MeaningLabel } from '../../../src/reconcile/meaning';
import type { Action, FieldChange, Json, ObjectAddress, ObjectKind } from '../../../src/reconcile/model';
import type { ServerDialect } from '../../../src/client/dialect/server-dialect';

const ADDRESS: Record<ObjectKind, ObjectAddress> = {
  role: { kind: 'role', mount: 'gcp', name: 'web' },
  'auth-config': { kind: 'auth-config', mount: 'gcp' },
  'auth-mount': { kind: 'auth-mount', mount: 'gcp' },
  'snapshot-config': { kind: 'snapshot-config', name: 'daily' },
};

function labels(
  kind: ObjectKind,
  changes: FieldChange[],
  o: { action?: Action; dialect?: ServerDialect; before?: Record<string, Json>; after?: Record<string, Json>; warnings?: string[] } = {},
): MeaningLabel[] {
  const plan = { id: 'x', address: ADDRESS[kind], action: o.action ?? 'update', changes, unchangedFields: 0, warnings: o.warnings };
  return labelsOf(meaningsOf({ plan, dialect: o.dialect ?? 'vault', before: o.before, after: o.after }));
}
const change = (field: string, before: Json | undefined, after: Json | undefined): FieldChange => ({ field, before, after });

/** A widening and a narrowing change for a kind of effect, with the labels each must carry. */
function casesFor(e: AccessEffect): Array<[string, Json, Json, MeaningLabel[]]> {
  switch (e.kind) {
    case 'bound-set':
      return [
        ['an entry added', ['a'], ['a', 'b'], ['broadens-access']],
        ['an entry removed', ['a', 'b'], ['a'], ['narrows-access']],
        ['emptied', ['a'], [], ['broadens-access']],
        ['first entry given', [], ['a'], ['narrows-access']],
      ];
    case 'bound-map':
      return [
        ['a label added', { a: '1' }, { a: '1', b: '2' }, ['broadens-access']],
        ['emptied', { a: '1' }, {}, ['broadens-access']],
        ['first label', {}, { a: '1' }, ['narrows-access']],
      ];
    case 'cidrs':
      return [
        ['widened', ['10.0.0.0/16'], ['10.0.0.0/8'], ['broadens-access']],
        ['narrowed', ['10.0.0.0/8'], ['10.1.0.0/16'], ['narrows-access']],
        ['removed', ['10.0.0.0/8'], [], ['broadens-access']],
        ['first set', [], ['10.0.0.0/8'], ['narrows-access']],
      ];
    case 'grant-set':
      return [
        ['a policy added', ['read'], ['read', 'admin'], ['broadens-access']],
        ['a policy removed', ['read', 'admin'], ['read'], ['narrows-access']],
      ];
    case 'limit':
      return [
        ['raised', 60, 120, ['broadens-access']],
        ['lowered', 120, 60, ['narrows-access']],
        e.zero === 'refuses-all'
          ? ['set to 0 (refuses every login)', 120, 0, ['locks-out']]
          : e.zero === 'off'
            ? ['turned on', 0, 60, ['broadens-access']]
            : ['set to 0 (unlimited or default)', 120, 0, ['broadens-access']],
      ];
    case 'switch':
      return [
        ['turned to the broad side', !e.broadensWhen, e.broadensWhen, ['broadens-access']],
        ['turned to the narrow side', e.broadensWhen, !e.broadensWhen, ['narrows-access']],
      ];
    case 'credential-destination':
      return [['pointed at another host', {}, { iam: 'https://elsewhere.example' }, ['credential-destination']]];
    case 'backup-count':
      return [
        ['lowered', 5, 2, ['reduces-backups']],
        ['raised', 2, 5, []],
      ];
    case 'backup-interval':
      return [
        ['lengthened', 3600, 86400, ['reduces-backups']],
        ['shortened', 86400, 3600, []],
      ];
    case 'backup-space':
      return [
        ['lowered', 1000, 10, ['reduces-backups']],
        ['raised', 10, 1000, []],
      ];
    case 'backup-location':
      return [['moved', 'old', 'new', e.sendsCredentials ? ['credential-destination', 'reduces-backups'] : ['reduces-backups']]];
    case 'review':
      return [['changed', 'a', 'b', ['needs-review']]];
    case 'neutral':
      return [['changed', 'a', 'b', []]];
  }
}

const TABLES: Array<[ObjectKind, Readonly<Record<string, AccessEffect>>, string[]]> = [
  ['role', ROLE_ACCESS, ROLE_FIELDS.filter((f) => !f.aliasOf && f.name !== 'name').map((f) => f.name)],
  ['auth-config', CONFIG_ACCESS, CLOUD_CONFIG_FIELDS.map((f) => f.name)],
  ['auth-mount', MOUNT_ACCESS, MOUNT_FIELDS.map((f) => f.name)],
  ['snapshot-config', SNAPSHOT_ACCESS, SNAPSHOT_FIELDS.map((f) => f.name)],
];

describe('every field of every table has an access effect', () => {
  it.each(TABLES.map(([k, effects, fields]) => [k, effects, fields] as const))('%s', (_k, effects, fields) => {
    expect(fields.filter((f) => !effects[f])).toEqual([]);
    expect(Object.keys(effects).filter((f) => !fields.includes(f))).toEqual([]);
  });
});

describe('each kind of change gets its label', () => {
  const rows = TABLES.flatMap(([kind, effects, fields]) =>
    fields.flatMap((field) => casesFor(effects[field]).map(([what, b, a, want]) => [`${kind} ${field}: ${what}`, kind, field, b, a, want] as const)),
  );
  it.each(rows)('%s', (_name, kind, field, b, a, want) => {
    // An iam role: `*` and the vm lock-out have their own cases below.
    expect(labels(kind, [change(field, b, a)], { before: { type: 'iam' }, after: { type: 'iam' } })).toEqual(want);
  });
  it('a value only known at apply is labelled for review, never neutral', () => {
    expect(labels('role', [change('token_ttl', 60, KNOWN_AFTER_APPLY)])).toEqual(['needs-review']);
    expect(labels('snapshot-config', [change('cloudone_access_key_id', 'a', KNOWN_AFTER_APPLY)])).toEqual(['needs-review']);
  });
});

describe('value-aware cases', () => {
  const iam = { before: { type: 'iam' }, after: { type: 'iam' } };
  const vm = { before: { type: 'vm' }, after: { type: 'vm' } };
  it('emptying a bound list broadens; giving an empty bound_projects its first project narrows', () => {
    expect(labels('role', [change('bound_projects', ['p1'], [])], iam)).toEqual(['broadens-access']);
    expect(labels('role', [change('bound_projects', [], ['p1'])], iam)).toEqual(['narrows-access']);
  });
  it('token_num_uses 5 → 0 broadens (0 is unlimited); 0 → 5 narrows', () => {
    expect(labels('role', [change('token_num_uses', 5, 0)])).toEqual(['broadens-access']);
    expect(labels('role', [change('token_num_uses', 0, 5)])).toEqual(['narrows-access']);
  });
  it('`*` on an iam role is any service account; on a vm role it locks out on Vault and OpenBao, and allows any on the engine', () => {
    const m = meaningsOf({
      plan: { id: 'x', address: ADDRESS.role, action: 'update', changes: [change('bound_service_accounts', ['a@p.iam.gserviceaccount.com'], ['*'])], unchangedFields: 0 },
      dialect: 'vault',
      ...iam,
    });
    expect(m.map((x) => x.label)).toEqual(['broadens-access']);
    expect(m[0].explanation).toMatch(/any service account in any project may log in through role `web` on `auth\/gcp`/);
    expect(labels('role', [change('bound_service_accounts', ['a@p.iam.gserviceaccount.com'], ['*'])], { ...vm, dialect: 'vault' })).toEqual(['narrows-access', 'locks-out']);
    expect(labels('role', [change('bound_service_accounts', ['a@p.iam.gserviceaccount.com'], ['*'])], { ...vm, dialect: 'keyward' })).toEqual(['broadens-access']);
    expect(labels('role', [change('bound_service_accounts', [], ['*'])], { ...vm, dialect: 'vault' })).toEqual(['locks-out']);
    expect(labels('role', [change('bound_service_accounts', [], ['*'])], { ...vm, dialect: 'keyward' })).toEqual([]);
  });
  it('a new vm role with `*` on Vault is a lock-out as well as a new role', () => {
    expect(labels('role', [], { action: 'create', dialect: 'vault', after: { type: 'vm', bound_service_accounts: ['*'] } })).toEqual(['broadens-access', 'locks-out']);
  });
  it('admin is named in the explanation', () => {
    const m = meaningsOf({
      plan: { id: 'x', address: ADDRESS.role, action: 'update', changes: [change('token_policies', ['read'], ['read', 'admin'])], unchangedFields: 0 },
      dialect: 'vault',
    });
    expect(m[0].explanation).toMatch(/`admin`: broad by name/);
  });
  it('a custom endpoint for sts also sends signed identity tokens; back to the default says so', () => {
    const to = meaningsOf({
      plan: { id: 'x', address: ADDRESS['auth-config'], action: 'update', changes: [change('custom_endpoint', {}, { sts: 'https://x.example' })], unchangedFields: 0 },
      dialect: 'keyward',
    });
    expect(to).toEqual([expect.objectContaining({ label: 'credential-destination', field: 'custom_endpoint.sts', explanation: expect.stringMatching(/signed identity tokens/) })]);
    const back = meaningsOf({
      plan: { id: 'x', address: ADDRESS['auth-config'], action: 'update', changes: [change('custom_endpoint', { iam: 'https://x.example' }, {})], unchangedFields: 0 },
      dialect: 'vault',
    });
    expect(back[0].explanation).toMatch(/default host/);
  });
  it('whole objects: a role deleted narrows, replaced interrupts logins; a mount deleted locks out and revokes; a moved mount revokes; a snapshot config removed reduces backups', () => {
    expect(labels('role', [], { action: 'delete' })).toEqual(['narrows-access']);
    expect(labels('role', [change('type', 'iam', 'vm')], { action: 'replace' })).toEqual(['interrupts-logins', 'needs-review']);
    expect(labels('auth-mount', [], { action: 'delete' })).toEqual(['locks-out', 'revokes-tokens']);
    expect(labels('auth-mount', [], { action: 'update', warnings: ['moving the mount revokes every token and lease issued through the mount'] })).toEqual(['revokes-tokens']);
    expect(labels('snapshot-config', [], { action: 'delete' })).toEqual(['reduces-backups']);
    expect(labels('snapshot-config', [], { action: 'create' })).toEqual([]);
  });
  it('secrets carry no meaning of their own (their values are never compared)', () => {
    expect(labels('auth-config', [{ field: 'credentials', sensitive: true }])).toEqual([]);
  });
});
