// Real Vault client libraries against the engine: node-vault's token, mount, policy, login and
// snapshot calls, including auths(), getPolicy() and policies(), which read Vault's top-level copies.

import nodeVault from 'node-vault';
import { startTestEngine, ROOT_TOKEN } from '../../support/engine';
import { startCloudFixture, mountCloudAuth, SA, audience } from '../../support/cloud-fixture';
import type { CloudEmulator } from '../../../src/cloud-emulator';
import type { Engine } from '../../../src/engine/engine';

let engine: Engine;
let emu: CloudEmulator;
beforeAll(async () => {
  engine = await startTestEngine();
  emu = await startCloudFixture();
  await mountCloudAuth(engine, emu);
});
afterAll(async () => {
  await engine.close();
  await emu.close();
});

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
    await v.addPolicy({ name: 'nv-reader', rules: 'path "sys/auth" { capabilities = ["read"] }' });
    expect((await v.getPolicy({ name: 'nv-reader' })).rules).toBe('path "sys/auth" { capabilities = ["read"] }');
    expect((await v.policies()).policies).toContain('nv-reader');
    await v.removePolicy({ name: 'nv-reader' });
    expect((await v.policies()).policies).not.toContain('nv-reader');
  });

  it('tokens: create, lookup-self, renew-self, revoke', async () => {
    const v = client();
    const created = await v.tokenCreate({ policies: ['default'], ttl: '1h' });
    const t = nodeVault({ endpoint: engine.url, token: created.auth.client_token });
    expect((await t.tokenLookupSelf()).data.policies).toContain('default');
    expect((await t.tokenRenewSelf()).auth.client_token).toBe(created.auth.client_token);
    await t.tokenRevokeSelf();
    await expect(t.tokenLookupSelf()).rejects.toMatchObject({ response: { statusCode: 403 } });
  });

  it('login through the generic write on auth/cloud/login', async () => {
    const v = client();
    await v.write('auth/cloud/role/nv-app', { type: 'iam', bound_service_accounts: SA.app.email });
    const jwt = emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('nv-app') });
    const anon = nodeVault({ endpoint: engine.url });
    const r = await anon.write('auth/cloud/login', { role: 'nv-app', jwt });
    expect(r.auth.client_token).toMatch(/^hv[sb]\./);
  });

  it('snapshot: a garbage restore is refused and the client keeps working', async () => {
    const v = client();
    await expect(v.write('sys/storage/raft/snapshot', { junk: 'x'.repeat(100_000) })).rejects.toMatchObject({ response: { statusCode: 400 } });
    expect((await v.health()).initialized).toBe(true);
  });
});

describe('node-vault-client', () => {
   
  const VaultClient = require('node-vault-client') as {
    boot(name: string, o: unknown): {
      read(p: string): Promise<{ getData(): Record<string, unknown> }>;
      list(p: string): Promise<{ getData(): Record<string, unknown> }>;
      write(p: string, d: unknown): Promise<Record<string, unknown> | undefined>;
    };
  };
  const client = () =>
    VaultClient.boot(`root-${engine.url}`, { api: { url: engine.url }, auth: { type: 'token', config: { token: ROOT_TOKEN } }, logger: false });

  it('token, mount, policy, login and snapshot calls', async () => {
    const v = client();
    const created = (await v.write('auth/token/create', { policies: ['default'], ttl: '1h' })) as { auth: { client_token: string } };
    expect(created.auth.client_token).toMatch(/^hvs\./);
    await v.write('sys/auth/nvc', { type: 'cloud' });
    expect((await v.read('sys/auth')).getData()['nvc/']).toMatchObject({ type: 'cloud' });
    await v.write('sys/policy/nvc', { policy: 'path "x" { capabilities = ["read"] }' });
    expect((await v.list('sys/policies/acl')).getData().keys).toContain('nvc');
    await v.write('auth/cloud/role/nvc-app', { type: 'iam', bound_service_accounts: SA.app.email });
    const jwt = emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('nvc-app') });
    const login = (await v.write('auth/cloud/login', { role: 'nvc-app', jwt })) as { auth: { client_token: string } };
    expect(login.auth.client_token).toMatch(/^hv[sb]\./);
    await expect(v.write('sys/storage/raft/snapshot', { junk: 'x'.repeat(10_000) })).rejects.toBeDefined();
    expect((await v.read('sys/license/status')).getData().edition).toBeDefined();
  });
});

describe('@litehex/node-vault', () => {
  it('token, mount, policy, login and snapshot calls', async () => {
     
    const { Client } = require('@litehex/node-vault') as typeof import('@litehex/node-vault');
    const v = new Client({ endpoint: engine.url, token: ROOT_TOKEN });
    const write = async (path: string, data: Record<string, unknown>) => {
      const r = await v.write({ path, data });
      if (r.error) throw r.error;
      return r.data as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    };
    const created = await write('auth/token/create', { policies: ['default'], ttl: '1h' });
    expect(created.auth.client_token).toMatch(/^hvs\./);
    await write('sys/auth/lh', { type: 'cloud' });
    const auths = await v.read({ path: 'sys/auth' });
    expect(auths.data?.data['lh/']).toMatchObject({ type: 'cloud' });
    await write('sys/policy/lh', { policy: 'path "x" { capabilities = ["read"] }' });
    expect((await v.read({ path: 'sys/policy/lh' })).data?.data.rules).toContain('path "x"');
    await write('auth/cloud/role/lh-app', { type: 'iam', bound_service_accounts: SA.app.email });
    const jwt = emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('lh-app') });
    const login = await write('auth/cloud/login', { role: 'lh-app', jwt });
    expect(login.auth.client_token).toMatch(/^hv[sb]\./);
    const restore = await v.write({ path: 'sys/storage/raft/snapshot', data: { junk: 'x' } });
    expect(restore.error).toBeDefined();
  });
});
