// The reconciler against the engine on loopback: plan -> apply -> plan is empty, single-field
// changes, deletes through the record, drift, exclusive scopes, secret rotation by fingerprint.

import { api, ROOT_TOKEN, startTestEngine } from '../../support/engine';
import { VaultClient } from '../../../src/client/vault-client';
import { ApplyError, applyPlan } from '../../../src/reconcile/apply';
import { desiredFromManifest } from '../../../src/reconcile/desired';
import { makePlan } from '../../../src/reconcile/plan';
import { parseManifest } from '../../../src/schema/manifest';
import { startFaultProxy } from './fault-proxy';
import type { Engine } from '../../../src/engine/engine';
import { hasChanges, type Plan } from '../../../src/reconcile/model';
import { client, iamRole, manifest, serviceAccountKey, Session } from './helpers';
import type { ManifestInput } from '../../../src/schema/manifest';

let engine: Engine;
beforeAll(async () => {
  engine = await startTestEngine({ edition: 'enterprise' });
});
afterAll(async () => {
  await engine.close();
});

const changed = (p: Plan) => p.objects.filter((o) => o.action !== 'no-op');

function base(
  mount: string,
  roles: ManifestInput['authBackends'] extends (infer B)[] | undefined ? (B extends { roles?: infer R } ? R : never) : never,
  extra: Record<string, unknown> = {},
): ManifestInput {
  return manifest({ authBackends: [{ path: mount, type: 'cloud', description: 'test mount', config: { iam_alias: 'unique_id' }, roles, ...extra }] });
}

describe('plan and apply against the engine', () => {
  test('a mount replaced through local: its config and roles are replaced with it (as keyward show of the Terraform plan says), all written again', async () => {
    const s = new Session(client(engine.url));
    const m = base('repl', [iamRole('web'), { name: 'batch', type: 'vm', bound_zones: 'europe-west1-b' }]);
    await s.apply(m);
    const idBefore = (await api(engine, 'GET', 'auth/repl/role/web')).body as { data: { role_id: string } };
    const m2 = base('repl', [iamRole('web'), { name: 'batch', type: 'vm', bound_zones: 'europe-west1-b' }], { local: true });
    const plan = await s.plan(m2);
    // Before: the roles and the config showed as create although they exist and go with the mount.
    expect(Object.fromEntries(changed(plan).map((o) => [o.id, o.action]))).toEqual({
      'auth/repl': 'replace',
      'auth/repl/config': 'replace',
      'auth/repl/role/web': 'replace',
      'auth/repl/role/batch': 'replace',
    });
    const web = plan.objects.find((o) => o.id === 'auth/repl/role/web')!;
    expect(web.reason).toMatch(/auth\/repl is replaced \(disabled and enabled again\)/);
    expect((web.warnings ?? []).join(' ')).toMatch(/stops renewing/);
    const { result } = await s.apply(m2);
    expect(result.verify && hasChanges(result.verify)).toBe(false);
    const after = (await api(engine, 'GET', 'auth/repl/role/web')).body as { data: { role_id: string; bound_service_accounts: string[] } };
    expect(after.data.bound_service_accounts).toEqual(['web@proj-a.iam.gserviceaccount.com']);
    expect(after.data.role_id).not.toBe(idBefore.data.role_id);
    expect(((await api(engine, 'GET', 'auth/repl/config')).body as { data: { iam_alias: string } }).data.iam_alias).toBe('unique_id');
    expect(changed(await s.plan(m2))).toEqual([]);
  });

  test('plan -> apply -> plan is empty', async () => {
    const s = new Session(client(engine.url));
    const m = base('conv', [
      iamRole('web', { token_ttl: '1h', token_bound_cidrs: '10.0.0.7' }),
      { name: 'batch', type: 'vm', bound_zones: 'europe-west1-b', bound_labels: { env: 'prod' } },
    ]);
    const first = await s.plan(m);
    expect(first.summary).toEqual({ create: 4, update: 0, replace: 0, delete: 0, noop: 0 });
    const { result } = await s.apply(m);
    expect(result.verify && hasChanges(result.verify)).toBe(false);
    const again = await s.plan(m);
    expect(changed(again)).toEqual([]);
    expect(again.drift).toEqual([]);
    // Equal meaning in another spelling plans nothing either.
    const respelled = base('conv', [
      iamRole('web', { token_ttl: 3600, token_bound_cidrs: ['10.0.0.7/32'] }),
      { name: 'batch', type: 'vm', bound_zones: ['europe-west1-b'], bound_labels: ['env:prod'] },
    ]);
    expect(changed(await s.plan(respelled))).toEqual([]);
    await s.c.close();
  });

  test('changing one field plans exactly that field; removing a field resets it', async () => {
    const s = new Session(client(engine.url));
    await s.apply(base('onefield', [iamRole('web'), iamRole('api')]));
    const p = await s.plan(base('onefield', [iamRole('web', { token_max_ttl: '2h' }), iamRole('api')]));
    expect(changed(p).map((o) => [o.id, o.action, o.changes])).toEqual([['auth/onefield/role/web', 'update', [{ field: 'token_max_ttl', before: 0, after: 7200 }]]]);
    await s.apply(base('onefield', [iamRole('web', { token_max_ttl: '2h' }), iamRole('api')]));
    const reset = await s.plan(base('onefield', [iamRole('web'), iamRole('api')]));
    expect(changed(reset)[0].changes).toEqual([{ field: 'token_max_ttl', before: 7200, after: 0 }]);
    await s.apply(base('onefield', [iamRole('web'), iamRole('api')]));
    const r = await api(engine, 'GET', 'auth/onefield/role/web');
    expect(r.body.data.token_max_ttl).toBe(0);
    await s.c.close();
  });

  test('removing a role deletes it; an undeclared role is untouched unless the scope is exclusive', async () => {
    const s = new Session(client(engine.url));
    await s.apply(base('owner', [iamRole('a'), iamRole('b')]));
    await api(engine, 'POST', 'auth/owner/role/handmade', { body: { type: 'iam', bound_service_accounts: 'x@y' } });
    const p = await s.plan(base('owner', [iamRole('a')]));
    expect(changed(p).map((o) => [o.id, o.action])).toEqual([['auth/owner/role/b', 'delete']]);
    await s.apply(base('owner', [iamRole('a')]));
    expect((await api(engine, 'GET', 'auth/owner/role/b')).status).toBe(404);
    expect((await api(engine, 'GET', 'auth/owner/role/handmade')).status).toBe(200);
    const excl = await s.plan(base('owner', [iamRole('a')], { exclusiveRoles: true }));
    expect(changed(excl).map((o) => [o.id, o.action, o.reason])).toEqual([['auth/owner/role/handmade', 'delete', 'not declared in an exclusive scope (exclusiveRoles)']]);
    await s.apply(base('owner', [iamRole('a')], { exclusiveRoles: true }));
    expect((await api(engine, 'GET', 'auth/owner/role/handmade')).status).toBe(404);
    await s.c.close();
  });

  test('an out-of-band change shows as drift and apply corrects it', async () => {
    const s = new Session(client(engine.url));
    const m = base('drift', [iamRole('web', { token_ttl: 600 })]);
    await s.apply(m);
    await api(engine, 'POST', 'auth/drift/role/web', { body: { token_ttl: 60, bound_projects: 'evil' } });
    await api(engine, 'POST', 'auth/drift/config', { body: { iam_alias: 'role_id' } });
    const p = await s.plan(m);
    expect(p.drift).toEqual(
      expect.arrayContaining([
        { id: 'auth/drift/role/web', field: 'token_ttl', lastApplied: 600, live: 60, kind: 'changed' },
        { id: 'auth/drift/role/web', field: 'bound_projects', lastApplied: [], live: ['evil'], kind: 'changed' },
        { id: 'auth/drift/config', field: 'iam_alias', lastApplied: 'unique_id', live: 'role_id', kind: 'changed' },
      ]),
    );
    await s.apply(m);
    const after = await s.plan(m);
    expect(changed(after)).toEqual([]);
    expect(after.drift).toEqual([]);
    // A managed role deleted out of band is drift too, and re-created.
    await api(engine, 'DELETE', 'auth/drift/role/web');
    const gone = await s.plan(m);
    expect(gone.drift).toEqual([{ id: 'auth/drift/role/web', field: '*', kind: 'deleted' }]);
    expect(changed(gone).map((o) => o.action)).toEqual(['create']);
    await s.c.close();
  });

  test('rotating a secret is planned through its fingerprint', async () => {
    const s = new Session(client(engine.url), { CREDS: serviceAccountKey('key-1') });
    const m = manifest({ authBackends: [{ path: 'rot', type: 'cloud', config: { credentials: { secretRef: { env: 'CREDS' } } }, roles: [] }] });
    await s.apply(m);
    expect(changed(await s.plan(m))).toEqual([]);
    expect((await api(engine, 'GET', 'auth/rot/config')).body.data.private_key_id).toBe('key-1');
    s.env = { CREDS: serviceAccountKey('key-2') };
    const p = await s.plan(m);
    expect(changed(p).map((o) => [o.id, o.changes])).toEqual([['auth/rot/config', [{ field: 'credentials', sensitive: true, before: '(sensitive)', after: '(sensitive)' }]]]);
    await s.apply(m);
    expect((await api(engine, 'GET', 'auth/rot/config')).body.data.private_key_id).toBe('key-2');
    expect(changed(await s.plan(m))).toEqual([]);
    // Credentials replaced out of band: the key id moved, and the server's key is kept with a
    // warning (the declared one may be deleted at Google: objects/auth-config.ts) ...
    await api(engine, 'POST', 'auth/rot/config', { body: { credentials: serviceAccountKey('key-other') } });
    const d = await s.plan(m);
    expect(changed(d)).toEqual([]);
    expect(d.objects.find((o) => o.id === 'auth/rot/config')!.warnings).toEqual([expect.stringContaining('private_key_id key-other')]);
    await s.apply(m);
    expect((await api(engine, 'GET', 'auth/rot/config')).body.data.private_key_id).toBe('key-other');
    // ... unless the user asks for the declared key explicitly (--resend).
    const desired = { ...desiredFromManifest(parseManifest(m), s.env), resend: new Set(['auth/rot/config']) };
    const forced = (await makePlan(s.c, desired, s.record)).plan;
    expect(changed(forced)[0].changes[0]).toMatchObject({ field: 'credentials', sensitive: true });
    await applyPlan(s.c, desired, s.record, forced, { env: s.env });
    expect((await api(engine, 'GET', 'auth/rot/config')).body.data.private_key_id).toBe('key-2');
    // Removing the secret from the desired state clears it.
    const cleared = manifest({ authBackends: [{ path: 'rot', type: 'cloud', config: {}, roles: [] }] });
    await s.apply(cleared);
    expect((await api(engine, 'GET', 'auth/rot/config')).body.data.private_key_id).toBeUndefined();
    await s.c.close();
  });

  test('a role type change is a replace; a mount removed from the desired state is disabled', async () => {
    const s = new Session(client(engine.url));
    await s.apply(base('repl', [iamRole('r1')]));
    const p = await s.plan(base('repl', [{ name: 'r1', type: 'vm', bound_zones: 'z-a' }]));
    const r1 = changed(p)[0];
    expect(r1.action).toBe('replace');
    expect(r1.changes.find((c) => c.field === 'type')).toEqual({ field: 'type', before: 'iam', after: 'vm', forcesReplace: true });
    await s.apply(base('repl', [{ name: 'r1', type: 'vm', bound_zones: 'z-a' }]));
    expect((await api(engine, 'GET', 'auth/repl/role/r1')).body.data.type).toBe('vm');
    const none = manifest({ authBackends: [] });
    const del = await s.plan(none);
    expect(changed(del).map((o) => [o.id, o.action])).toEqual([
      ['auth/repl', 'delete'],
      ['auth/repl/role/r1', 'delete'],
    ]);
    await s.apply(none);
    const mounts = await api(engine, 'GET', 'sys/auth');
    expect(Object.keys(mounts.body.data ?? mounts.body)).not.toContain('repl/');
    expect(s.record.objects).toEqual({});
    await s.c.close();
  });
});

describe('snapshot configs', () => {
  test('create, no-op, update, replace on storage_type change, secret rotation, exclusive scope', async () => {
    const dir = require('node:fs').mkdtempSync(require('node:path').join(require('node:os').tmpdir(), 'keyward-snap-'));
    const s = new Session(client(engine.url), { S3_SECRET: 'secret-access-key-1' });
    const local = { name: 'hourly', storage_type: 'local' as const, interval: '1h', retain: 3, path_prefix: dir, local_max_space: 1_000_000 };
    const s3 = {
      name: 'offsite',
      storage_type: 'cloudone-store' as const,
      interval: 86400,
      path_prefix: 'raft/',
      cloudone_bucket: 'backups',
      cloudone_region: 'eu-west-1',
      cloudone_endpoint: '127.0.0.1:1',
      cloudone_disable_tls: true,
      cloudone_force_path_style: true,
      cloudone_access_key_id: 'AKID',
      cloudone_secret_access_key: { secretRef: { env: 'S3_SECRET' } },
    };
    const m = (snaps: unknown[], exclusive = false) => manifest({ snapshotConfigs: snaps as never, exclusiveSnapshotConfigs: exclusive });
    const first = await s.apply(m([local, s3]));
    expect(first.plan.summary.create).toBe(2);
    expect(changed(await s.plan(m([local, s3])))).toEqual([]);
    const read = await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/config/offsite');
    expect(read.body.data.cloudone_secret_access_key).toBeUndefined();

    // One field; then the secret rotates.
    const p1 = await s.plan(m([{ ...local, retain: 5 }, s3]));
    expect(changed(p1).map((o) => [o.id, o.changes])).toEqual([['snapshot/hourly', [{ field: 'retain', before: 3, after: 5 }]]]);
    s.env = { S3_SECRET: 'secret-access-key-2' };
    const p2 = await s.plan(m([local, s3]));
    expect(changed(p2).map((o) => [o.id, o.changes])).toEqual([
      ['snapshot/offsite', [{ field: 'cloudone_secret_access_key', sensitive: true, before: '(sensitive)', after: '(sensitive)' }]],
    ]);
    await s.apply(m([local, s3]));
    expect(changed(await s.plan(m([local, s3])))).toEqual([]);

    // storage_type is immutable: a replace.
    const moved = { name: 'hourly', storage_type: 'cloudone-store' as const, interval: 3600, path_prefix: 'h/', cloudone_bucket: 'b2', cloudone_region: 'r' };
    const p3 = await s.plan(m([moved, s3]));
    expect(changed(p3)[0]).toMatchObject({ id: 'snapshot/hourly', action: 'replace' });
    await s.apply(m([moved, s3]));
    expect((await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/config/hourly')).body.data.storage_type).toBe('cloudone-store');

    // Undeclared configs stay unless the scope is exclusive.
    await api(engine, 'POST', 'sys/storage/raft/snapshot-auto/config/manual', {
      body: { storage_type: 'local', interval: 60, path_prefix: dir, file_prefix: 'manual', local_max_space: 1000 },
    });
    expect(changed(await s.plan(m([moved, s3])))).toEqual([]);
    const ex = await s.plan(m([moved, s3], true));
    expect(changed(ex).map((o) => [o.id, o.action])).toEqual([['snapshot/manual', 'delete']]);
    await s.apply(m([moved, s3], true));
    // Removing a config from the desired state deletes it.
    await s.apply(m([s3]));
    const list = await api(engine, 'LIST', 'sys/storage/raft/snapshot-auto/config');
    expect(list.body.data.keys).toEqual(['offsite']);
    await s.c.close();
  });
});

describe('namespaces', () => {
  test('auth objects go to the client namespace, snapshot configs to the root namespace', async () => {
    expect((await api(engine, 'POST', 'sys/namespaces/team')).status).toBeLessThan(300);
    const c = new VaultClient({ address: engine.url, token: ROOT_TOKEN, namespace: 'team' });
    const s = new Session(c);
    const dir = require('node:fs').mkdtempSync(require('node:path').join(require('node:os').tmpdir(), 'keyward-ns-'));
    const m = manifest({
      authBackends: [{ path: 'nscloud', type: 'cloud', roles: [iamRole('web')] }],
      snapshotConfigs: [{ name: 'ns-hourly', storage_type: 'local', interval: '1h', path_prefix: dir, local_max_space: 1000 }],
    });
    await s.apply(m);
    expect(changed(await s.plan(m))).toEqual([]);
    expect((await api(engine, 'GET', 'auth/nscloud/role/web', { namespace: 'team' })).status).toBe(200);
    expect((await api(engine, 'GET', 'auth/nscloud/role/web')).status).not.toBe(200);
    expect((await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/config/ns-hourly')).status).toBe(200);
    await c.close();
  });
});

describe('write-then-verify', () => {
  test('apply fails naming a field the server did not take', async () => {
    // A server that silently ignores token_num_uses on role writes.
    const proxy = await startFaultProxy(engine.url, 0, 1, (method, path, body) => {
      if (method !== 'POST' || !path.includes('/role/') || body === '') return body;
      const b = JSON.parse(body);
      delete b.token_num_uses;
      return JSON.stringify(b);
    });
    const s = new Session(client(proxy.url));
    try {
      const e = await s.apply(base('verify', [iamRole('web', { token_num_uses: 5 })])).catch((x) => x);
      expect(e).toBeInstanceOf(ApplyError);
      expect(e.message).toBe('apply did not converge: the server did not take these fields:\n  auth/verify/role/web: token_num_uses (wanted 5, server has 0)');
    } finally {
      await s.c.close();
      await proxy.close();
    }
  });
});
