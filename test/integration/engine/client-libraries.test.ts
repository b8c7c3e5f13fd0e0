// Real Vault client libraries against the engine over loopback: each of node-vault,
// node-vault-client, @litehex/node-vault and hashi-vault-js runs token, mount, policy, login and
// snapshot calls. Where a library has a call for the operation it is used; where it has none, its
// generic read/write/list is used (said at each place). node-vault's auths(), getPolicy() and
// policies() read Vault's top-level copies of `data`.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodeVault from 'node-vault';
import { startTestEngine, ROOT_TOKEN } from '../../support/engine';
import { startCloudFixture, mountCloudAuth, SA, audience } from '../../support/cloud-fixture';
import { runAsync } from '../../support/run-async';
import type { CloudEmulator } from '../../../src/cloud-emulator';
import type { Engine } from '../../../src/engine/engine';

let engine: Engine;
let emu: CloudEmulator;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kw-clientlibs-'));
  engine = await startTestEngine();
  emu = await startCloudFixture();
  await mountCloudAuth(engine, emu);
});
afterAll(async () => {
  await engine.close();
  await emu.close();
  await rm(dir, { recursive: true, force: true });
});

const RULES = 'path "sys/auth" { capabilities = ["read"] }';
const iamRole = { type: 'iam', bound_service_accounts: SA.app.email, token_policies: ['default'] };
const jwtFor = (role: string) => emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience(role) });
/** A local automated-snapshot config (Vault Enterprise's sys/storage/raft/snapshot-auto/config/:name). */
const snapshotAuto = (name: string) => ({ storage_type: 'local', interval: '24h', path_prefix: join(dir, name), local_max_space: '1000000' });
const SNAP_AUTO = 'sys/storage/raft/snapshot-auto/config';

describe('node-vault', () => {
  const client = () => nodeVault({ endpoint: engine.url, token: ROOT_TOKEN, apiVersion: 'v1' });

  it('mounts: enableAuth, auths(), disableAuth', async () => {
    const v = client();
    await v.enableAuth({ mount_point: 'nv', type: 'cloud', description: 'from node-vault' });
    const auths = await v.auths();
    expect(auths['nv/']).toMatchObject({ type: 'cloud', description: 'from node-vault' });
    expect(auths['token/']).toMatchObject({ type: 'token' });
    await v.disableAuth({ mount_point: 'nv' });
    expect((await v.auths())['nv/']).toBeUndefined();
  });

  it('policies: addPolicy, getPolicy(), policies(), removePolicy', async () => {
    const v = client();
    await v.addPolicy({ name: 'nv-reader', rules: RULES });
    expect((await v.getPolicy({ name: 'nv-reader' })).rules).toBe(RULES);
    expect((await v.policies()).policies).toContain('nv-reader');
    await v.removePolicy({ name: 'nv-reader' });
    expect((await v.policies()).policies).not.toContain('nv-reader');
  });

  it('tokens: create, lookup, renew, revoke (by token and -self)', async () => {
    // tokenCreate and tokenRenew are token sources in node-vault: the client switches to the token
    // they return, so each call on another token uses a fresh root client.
    const created = await client().tokenCreate({ policies: ['default'], ttl: '1h' });
    const token = created.auth.client_token;
    expect((await client().tokenLookup({ token })).data).toMatchObject({ id: token, policies: ['default'] });
    expect((await client().tokenRenew({ token, increment: '2h' })).auth).toMatchObject({ client_token: token, lease_duration: 7200 });
    await client().tokenRevoke({ token });
    await expect(client().tokenLookup({ token })).rejects.toMatchObject({ response: { statusCode: 403 } });

    const self = (await client().tokenCreate({ policies: ['default'], ttl: '1h' })).auth.client_token;
    const t = nodeVault({ endpoint: engine.url, token: self });
    expect((await t.tokenLookupSelf()).data.policies).toContain('default');
    expect((await t.tokenRenewSelf()).auth.client_token).toBe(self);
    await t.tokenRevokeSelf();
    await expect(t.tokenLookupSelf()).rejects.toMatchObject({ response: { statusCode: 403 } });

    // By accessor: list (LIST auth/token/accessors, sudo), lookup, revoke.
    const byAccessor = (await client().tokenCreate({ policies: ['default'], ttl: '1h' })).auth;
    expect((await client().tokenAccessors()).data.keys).toContain(byAccessor.accessor);
    expect((await client().tokenLookupAccessor({ accessor: byAccessor.accessor })).data).toMatchObject({ id: '', accessor: byAccessor.accessor });
    await client().tokenRevokeAccessor({ accessor: byAccessor.accessor });
    await expect(client().tokenLookup({ token: byAccessor.client_token })).rejects.toMatchObject({ response: { statusCode: 403 } });
  });

  it('login: gcpLogin on the cloud mount (the cloud method speaks Vault GCP auth)', async () => {
    // No cloud role call in node-vault: the role goes through the generic write.
    await client().write('auth/cloud/role/nv-app', iamRole);
    const anon = nodeVault({ endpoint: engine.url });
    const r = await anon.gcpLogin({ mount_point: 'cloud', role: 'nv-app', jwt: jwtFor('nv-app') });
    expect(r.auth).toMatchObject({ policies: ['default'], metadata: { role: 'nv-app', service_account_email: SA.app.email } });
    // gcpLogin is a token source: the client now uses the issued token.
    expect(anon.token).toBe(r.auth.client_token);
    expect((await anon.tokenLookupSelf()).data.meta.role).toBe('nv-app');
  });

  it('snapshot: snapshot-auto config through the generic calls; a garbage restore is refused and the client keeps working', async () => {
    // node-vault has no raft calls, and its JSON-only transport cannot carry a binary archive.
    const v = client();
    await v.write(`${SNAP_AUTO}/nv`, snapshotAuto('nv'));
    expect((await v.read(`${SNAP_AUTO}/nv`)).data).toMatchObject({ storage_type: 'local', interval: 86400, path_prefix: join(dir, 'nv') });
    expect((await v.list(SNAP_AUTO)).data.keys).toContain('nv');
    await v.delete(`${SNAP_AUTO}/nv`);
    await expect(v.write('sys/storage/raft/snapshot', { junk: 'x'.repeat(100_000) })).rejects.toMatchObject({ response: { statusCode: 400 } });
    expect((await v.health()).initialized).toBe(true);
  });
});

describe('node-vault-client', () => {
  type Lease = { getData(): Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  type Client = {
    read(p: string): Promise<Lease>;
    list(p: string): Promise<Lease>;
    write(p: string, d?: unknown): Promise<Record<string, any> | undefined>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const VaultClient = require('node-vault-client') as { boot(name: string, o: unknown): Client };
  let n = 0;
  // boot() caches instances by name: every test gets a fresh one.
  const boot = (auth: unknown): Client => VaultClient.boot(`nvc-${n++}`, { api: { url: engine.url }, auth, logger: false });
  const root = () => boot({ type: 'token', config: { token: ROOT_TOKEN } });

  // node-vault-client offers read, list and write only: every call below is one of those.
  it('tokens: create, lookup, renew, revoke through write/read', async () => {
    const v = root();
    const created = (await v.write('auth/token/create', { policies: ['default'], ttl: '1h' }))!;
    const token = created.auth.client_token as string;
    expect(token).toMatch(/^hvs\./);
    expect((await v.write('auth/token/lookup', { token }))!.data).toMatchObject({ id: token, policies: ['default'] });
    expect((await v.write('auth/token/renew', { token, increment: '2h' }))!.auth).toMatchObject({ client_token: token, lease_duration: 7200 });
    await v.write('auth/token/revoke', { token });
    await expect(v.write('auth/token/lookup', { token })).rejects.toBeDefined();
    // A client booted with a renewable token keeps a renewal timer alive (the library has no way
    // to stop it), so the client-side token here is a non-renewable one.
    const fixed = (await v.write('auth/token/create', { policies: ['default'], ttl: '1h', renewable: false }))!.auth.client_token as string;
    expect((await boot({ type: 'token', config: { token: fixed } }).read('auth/token/lookup-self')).getData()).toMatchObject({ id: fixed, renewable: false });
  });

  it('mount, policy and snapshot-auto config through write/read/list; a garbage restore is refused', async () => {
    const v = root();
    await v.write('sys/auth/nvc', { type: 'cloud' });
    expect((await v.read('sys/auth')).getData()['nvc/']).toMatchObject({ type: 'cloud' });
    await v.write('sys/policy/nvc', { policy: RULES });
    expect((await v.read('sys/policy/nvc')).getData().rules).toBe(RULES);
    expect((await v.list('sys/policies/acl')).getData().keys).toContain('nvc');
    await v.write(`${SNAP_AUTO}/nvc`, snapshotAuto('nvc'));
    expect((await v.read(`${SNAP_AUTO}/nvc`)).getData()).toMatchObject({ storage_type: 'local', interval: 86400 });
    expect((await v.list(SNAP_AUTO)).getData().keys).toContain('nvc');
    await expect(v.write('sys/storage/raft/snapshot', { junk: 'x'.repeat(10_000) })).rejects.toBeDefined();
    expect((await v.read('sys/license/status')).getData().edition).toBeDefined();
  });

  it('login: the library logs itself in with its Kubernetes-style {role, jwt} method on the cloud mount', async () => {
    // A batch token: not renewable, so the library sets no renewal timer (see above).
    await root().write('auth/cloud/role/nvc-app', { ...iamRole, token_type: 'batch' });
    const jwtFile = join(dir, 'nvc.jwt');
    await writeFile(jwtFile, jwtFor('nvc-app'));
    const app = boot({ type: 'kubernetes', mount: 'cloud', config: { role: 'nvc-app', tokenPath: jwtFile } });
    // The first request logs in (POST auth/cloud/login, then lookup-self) and uses the issued token.
    const self = (await app.read('auth/token/lookup-self')).getData();
    expect(self).toMatchObject({ policies: ['default'], meta: { role: 'nvc-app' } });
    expect(self.path).toBe('auth/cloud/login');
  });
});

describe('@litehex/node-vault', () => {
  it('token, mount, policy, login and snapshot calls', async () => {
    const { Client } = require('@litehex/node-vault') as typeof import('@litehex/node-vault');
    // The library's typed calls cover secrets engines and sys/mounts, not tokens, auth methods,
    // policies or snapshots: those go through its generic read/write/list/delete.
    const v = new Client({ endpoint: engine.url, token: ROOT_TOKEN });
    const check = <T extends { data?: unknown; error?: unknown }>(r: T) => {
      if (r.error) throw r.error;
      return r.data as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    };
    const write = async (path: string, data: Record<string, unknown>) => check(await v.write({ path, data }));
    const read = async (path: string) => check(await v.read({ path }));

    const token = (await write('auth/token/create', { policies: ['default'], ttl: '1h' })).auth.client_token as string;
    expect((await write('auth/token/lookup', { token })).data).toMatchObject({ id: token });
    expect((await write('auth/token/renew', { token, increment: '2h' })).auth.lease_duration).toBe(7200);
    const asToken = new Client({ endpoint: engine.url, token });
    expect(check(await asToken.read({ path: 'auth/token/lookup-self' })).data.id).toBe(token);
    await write('auth/token/revoke', { token });
    expect((await asToken.read({ path: 'auth/token/lookup-self' })).error).toBeDefined();

    await write('sys/auth/lh', { type: 'cloud' });
    expect((await read('sys/auth')).data['lh/']).toMatchObject({ type: 'cloud' });
    check(await v.delete({ path: 'sys/auth/lh' }));
    expect((await read('sys/auth')).data['lh/']).toBeUndefined();

    await write('sys/policy/lh', { policy: RULES });
    expect((await read('sys/policy/lh')).data.rules).toBe(RULES);
    expect(check(await v.list({ path: 'sys/policies/acl' })).data.keys).toContain('lh');

    await write('auth/cloud/role/lh-app', iamRole);
    const anon = new Client({ endpoint: engine.url });
    const login = check(await anon.write({ path: 'auth/cloud/login', data: { role: 'lh-app', jwt: jwtFor('lh-app') } }));
    expect(login.auth).toMatchObject({ policies: ['default'], metadata: { role: 'lh-app' } });

    await write(`${SNAP_AUTO}/lh`, snapshotAuto('lh'));
    expect((await read(`${SNAP_AUTO}/lh`)).data).toMatchObject({ storage_type: 'local', interval: 86400 });
    expect(check(await v.list({ path: SNAP_AUTO })).data.keys).toContain('lh');
    const restore = await v.write({ path: 'sys/storage/raft/snapshot', data: { junk: 'x' } });
    expect(restore.error).toBeDefined();
    expect((await read('sys/license/status')).data.edition).toBeDefined();
  });
});

describe('hashi-vault-js (ES module only: run in a child process)', () => {
  it('token, mount, policy, login and snapshot save/restore calls', async () => {
    // The role is written here; the script logs in with the library's own call.
    const r0 = await nodeVault({ endpoint: engine.url, token: ROOT_TOKEN }).write('auth/cloud/role/hv-app', iamRole);
    expect(r0).toBeDefined();
    const script = join(__dirname, '..', '..', 'support', 'hashi-vault-js-client.mjs');
    const run = await runAsync(process.execPath, [script], {
      env: { ...process.env, KW_URL: engine.url, KW_TOKEN: ROOT_TOKEN, KW_JWT: jwtFor('hv-app'), KW_ROLE: 'hv-app' },
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.error).toBeUndefined();

    const token = out.created.client_token;
    expect(out.created).toMatchObject({ policies: ['default'], renewable: true });
    expect(out.lookup).toMatchObject({ id: token, policies: ['default'] });
    expect(out.lookupSelf).toMatchObject({ id: token });
    expect(out.renew).toMatchObject({ client_token: token, lease_duration: 7200 });
    expect(out.renewSelf).toMatchObject({ client_token: token, lease_duration: 3600 });
    expect(out.afterRevoke).toBe(403);
    expect(out.afterRevokeSelf).toBe(403);
    expect(out.accessorList).toContain(out.accessor);
    expect(out.accessorLookup).toMatchObject({ accessor: out.accessor, id: '', policies: ['default'] });
    expect(out.accessorRenew).toMatchObject({ accessor: out.accessor, lease_duration: 7200 });
    expect(out.afterRevokeAccessor).toBe(403);

    expect(out.auths.data['hv/']).toMatchObject({ type: 'cloud', description: 'from hashi-vault-js' });
    expect(out.auths['hv/']).toMatchObject({ type: 'cloud' });
    expect(out.authsAfterDisable).not.toContain('hv/');

    expect(out.policy).toMatchObject({ name: 'hv-reader', policy: RULES });
    expect(out.policyList).toContain('hv-reader');
    expect(out.capabilities).toMatchObject({ 'sys/auth': ['read'], capabilities: ['read'] });

    expect(out.login).toMatchObject({ policies: ['default'], metadata: { role: 'hv-app', service_account_email: SA.app.email } });
    expect(out.loginLookup).toMatchObject({ path: 'auth/cloud/login', meta: { role: 'hv-app' } });

    expect(out.snapshotGzip).toBe('1f8b');
    expect(out.snapshotBytes).toBeGreaterThan(100);
    expect(out.restoreStatus).toBe(204);
    expect(out.policiesAfterRestore).toContain('hv-reader');
    expect(out.policiesAfterRestore).not.toContain('hv-after-save');
  });
});
