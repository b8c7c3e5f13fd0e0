// The diff as a pure function: every action, replace through immutable fields, deletes through
// the record and exclusive scopes, drift, and secrets compared through fingerprints.

import { diff } from '../../../src/reconcile/diff';
import { desiredFromManifest } from '../../../src/reconcile/desired';
import type { LiveState } from '../../../src/reconcile/live';
import { emptyRecord, recordedFrom } from '../../../src/reconcile/record';
import { liveConfigFields, mountFields } from '../../../src/reconcile/canonical';
import { fingerprintSecret, parseManifest } from '../../../src/schema/manifest';
import { fixtureDesired, fixtureLive, fixtureRecord, SALT, SECRET_NEW } from './fixtures';

const emptyLive = (): LiveState => ({ objects: new Map(), listedRoles: new Map(), listedSnapshots: [], moved: new Map() });

describe('diff', () => {
  const desired = fixtureDesired();
  const result = diff(desired, fixtureLive(), fixtureRecord(desired));
  const byId = new Map(result.objects.map((o) => [o.id, o]));

  test('one plan entry per object, ordered mounts, config, roles, snapshots', () => {
    expect(result.objects.map((o) => [o.id, o.action])).toEqual([
      ['auth/cloud', 'no-op'],
      ['auth/cloud/config', 'update'],
      ['auth/cloud/role/batch', 'replace'],
      ['auth/cloud/role/new', 'create'],
      ['auth/cloud/role/old', 'delete'],
      ['auth/cloud/role/same', 'no-op'],
      ['auth/cloud/role/stray', 'delete'],
      ['auth/cloud/role/web', 'update'],
      ['snapshot/daily', 'update'],
    ]);
  });

  test('updates list exactly the changed fields and count the rest', () => {
    const web = byId.get('auth/cloud/role/web')!;
    expect(web.changes).toEqual([{ field: 'token_ttl', before: 60, after: 3600 }]);
    expect(web.unchangedFields).toBe(14);
    expect(byId.get('snapshot/daily')!.changes).toEqual([{ field: 'retain', before: 3, after: 7 }]);
  });

  test('an immutable field forces a replace and is marked', () => {
    const batch = byId.get('auth/cloud/role/batch')!;
    expect(batch.changes.find((c) => c.field === 'type')).toEqual({ field: 'type', before: 'iam', after: 'vm', forcesReplace: true });
  });

  test('deletes name their reason', () => {
    expect(byId.get('auth/cloud/role/old')!.reason).toBe('removed from the desired state');
    expect(byId.get('auth/cloud/role/stray')!.reason).toBe('not declared in an exclusive scope (exclusiveRoles)');
  });

  test('secret rotation: the desired fingerprint differs from the recorded one', () => {
    expect(byId.get('auth/cloud/config')!.changes).toEqual([{ field: 'credentials', sensitive: true, before: '(sensitive)', after: '(sensitive)' }]);
  });

  test('drift: live differs from the last-applied record', () => {
    expect(result.drift).toEqual([
      { id: 'auth/cloud/role/web', field: 'token_ttl', lastApplied: 3600, live: 60, kind: 'changed' },
      { id: 'snapshot/daily', field: 'retain', lastApplied: 7, live: 3, kind: 'changed' },
      // A role made by hand on the managed mount: the mount admits more than the stack says.
      { id: 'auth/cloud/role/stray', field: '*', kind: 'created' },
    ]);
  });

  test('drift is complete: an object being deleted that was changed, or deleted, outside is drift too', () => {
    const live = fixtureLive();
    const record = fixtureRecord(desired);
    const old = live.objects.get('auth/cloud/role/old')!;
    record.objects['auth/cloud/role/old'].fields = { ...old.fields };
    old.fields = { ...old.fields, token_ttl: 12345 };
    expect(diff(desired, live, record).drift).toContainEqual({ id: 'auth/cloud/role/old', field: 'token_ttl', lastApplied: 0, live: 12345, kind: 'changed' });
    live.objects.delete('auth/cloud/role/old');
    live.listedRoles.set(
      'cloud',
      (live.listedRoles.get('cloud') ?? []).filter((n) => n !== 'old'),
    );
    const r = diff(desired, live, record);
    expect(r.drift).toContainEqual({ id: 'auth/cloud/role/old', field: '*', kind: 'deleted' });
    expect(r.objects.find((o) => o.id === 'auth/cloud/role/old')).toBeUndefined();
  });

  test('an undeclared object outside an exclusive scope is left alone', () => {
    const m = parseManifest({ version: 1, fingerprintSalt: SALT, authBackends: [{ path: 'cloud', type: 'cloud', roles: [] }] });
    const d = desiredFromManifest(m, {});
    const live = fixtureLive();
    const r = diff(d, live, emptyRecord());
    expect(r.objects.map((o) => [o.id, o.action])).toEqual([['auth/cloud', 'update']]);
  });

  test('everything is created on an empty server, secrets as (sensitive)', () => {
    const r = diff(desired, emptyLive(), emptyRecord());
    expect(new Set(r.objects.map((o) => o.action))).toEqual(new Set(['create']));
    const cfg = r.objects.find((o) => o.id === 'auth/cloud/config')!;
    expect(cfg.changes.find((c) => c.field === 'credentials')).toEqual({ field: 'credentials', sensitive: true, after: '(sensitive)' });
    expect(r.drift).toEqual([]);
  });

  test('children of a mount whose type changes are re-created: replaced with it where they exist, every field written again', () => {
    const live = fixtureLive();
    live.objects.get('auth/cloud')!.fields = mountFields('kubernetes', { description: 'workloads' });
    const r = diff(desired, live, emptyRecord());
    expect(r.objects.find((o) => o.id === 'auth/cloud')!.action).toBe('replace');
    const web = r.objects.find((o) => o.id === 'auth/cloud/role/web')!;
    expect(web.action).toBe('replace');
    expect(web.reason).toMatch(/auth\/cloud is replaced/);
    // Compared as a create: the new mount holds nothing, so the write carries every declared field.
    expect(web.changes.map((c) => c.field).sort()).toEqual(Object.keys(desired.objects.get('auth/cloud/role/web')!.fields).sort());
    expect(web.changes.every((c) => c.before === undefined)).toBe(true);
  });

  describe('secrets', () => {
    const m = (secret: boolean) =>
      parseManifest({
        version: 1,
        fingerprintSalt: SALT,
        authBackends: [{ path: 'c', type: 'cloud', config: secret ? { credentials: { secretRef: { env: 'X', fingerprint: fingerprintSecret(SALT, SECRET_NEW) } } } : {} }],
      });
    const liveWith = (state: 'set' | 'unset', keyId?: string): LiveState => {
      const l = emptyLive();
      l.objects.set('auth/c', { id: 'auth/c', address: { kind: 'auth-mount', mount: 'c' }, fields: mountFields('cloud', { description: '' }), secrets: {}, observed: {} });
      l.objects.set('auth/c/config', {
        id: 'auth/c/config',
        address: { kind: 'auth-config', mount: 'c' },
        fields: liveConfigFields({}),
        secrets: { credentials: state },
        observed: keyId ? { credentials: keyId } : {},
      });
      return l;
    };
    const cfgChanges = (secret: boolean, live: LiveState, recorded?: string, keyId?: string) => {
      const d = desiredFromManifest(m(secret), {});
      const rec = emptyRecord();
      if (recorded !== undefined)
        rec.objects['auth/c/config'] = { ...recordedFrom(d.objects.get('auth/c/config')!), secrets: { credentials: recorded }, observed: keyId ? { credentials: keyId } : {} };
      return diff(d, live, rec).objects.find((o) => o.id === 'auth/c/config')!.changes;
    };
    const fp = fingerprintSecret(SALT, SECRET_NEW);

    test('recorded fingerprint equal: unchanged', () => expect(cfgChanges(true, liveWith('set', 'k'), fp, 'k')).toEqual([]));
    // A key keyward did not write is the server's (objects/auth-config.ts): kept, with a warning.
    test('no record, key unknown: kept with a warning', () => {
      expect(cfgChanges(true, liveWith('set'))).toEqual([]);
    });
    test('unset on the server: written', () => expect(cfgChanges(true, liveWith('unset'), fp)[0]).toMatchObject({ before: null, after: '(sensitive)' }));
    test('key id moved out of band: the server key is kept (no change)', () => expect(cfgChanges(true, liveWith('set', 'other'), fp, 'k')).toEqual([]));
    test('not declared but set by keyward: cleared', () =>
      expect(cfgChanges(false, liveWith('set'), fp)).toEqual([{ field: 'credentials', sensitive: true, before: '(sensitive)', after: null }]));
    test('not declared, set by someone else: left alone', () => expect(cfgChanges(false, liveWith('set'))).toEqual([]));
    test('not declared, not set: unchanged', () => expect(cfgChanges(false, liveWith('unset'))).toEqual([]));
  });
});

describe('diff: removing a mount that holds roles the stack never managed', () => {
  const full = fixtureDesired();
  const record = fixtureRecord(full);
  const nothing = desiredFromManifest(parseManifest({ version: 1, fingerprintSalt: SALT, authBackends: [], snapshotConfigs: [] } as never), {});

  test('keeps the mount and its config, deletes only the managed roles, and says so', () => {
    const r = diff(nothing, fixtureLive(), record);
    const byId = new Map(r.objects.map((o) => [o.id, o]));
    expect(byId.get('auth/cloud')!.action).toBe('no-op');
    expect(byId.get('auth/cloud')!.reason).toBe('kept: auth/cloud holds 2 roles not managed by this stack; the mount and its config are left as they are');
    expect(byId.get('auth/cloud/config')!.action).toBe('no-op');
    expect(byId.get('auth/cloud/role/web')!.action).toBe('delete');
    expect(byId.get('auth/cloud/role/old')!.action).toBe('delete');
    expect(byId.has('auth/cloud/role/stray')).toBe(false);
  });

  test('disables the mount when every role on it was managed', () => {
    const live = fixtureLive();
    live.listedRoles.set('cloud', ['old', 'same', 'web']);
    const r = diff(nothing, live, record);
    expect(r.objects.find((o) => o.id === 'auth/cloud')!.action).toBe('delete');
  });
});
