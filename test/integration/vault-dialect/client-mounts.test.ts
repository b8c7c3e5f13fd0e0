// The client's typed mount and write APIs, the same calls against the Vault contract server and the
// embedded engine: AuthMount with `local` and a typed config, sys.tune, sys.remount (polled until
// the migration succeeds, an error when it fails), write calls resolving to translated warnings,
// and rotate-root on Vault.

import { VaultClient } from '../../../src/client/vault-client';
import { VaultClientError } from '../../../src/client/errors';
import { startTestEngine, ROOT_TOKEN } from '../../support/engine';
import { CONTRACT_TOKEN, startVaultContract, type VaultContract } from '../../support/vault-contract/server';

let vault: VaultContract;
let engine: Awaited<ReturnType<typeof startTestEngine>>;
const clients: VaultClient[] = [];
beforeAll(async () => {
  [vault, engine] = await Promise.all([startVaultContract({ remountPendingReads: 2 }), startTestEngine({ edition: 'enterprise' })]);
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await Promise.all([vault.close(), engine.close()]);
});

function client(server: 'vault' | 'engine'): VaultClient {
  const c = server === 'vault' ? new VaultClient({ address: vault.url, token: CONTRACT_TOKEN }) : new VaultClient({ address: engine.url, token: ROOT_TOKEN });
  clients.push(c);
  return c;
}

describe.each(['vault', 'engine'] as const)('on %s', (server) => {
  test('enable with local and config, tune, list: typed AuthMount', async () => {
    const c = client(server);
    expect(await c.sys.enableAuth('kw-a', { type: 'cloud', description: 'a', local: true, config: { default_lease_ttl: '1h' } })).toEqual([]);
    expect(await c.sys.tune('kw-a', { max_lease_ttl: 7200, token_type: 'default-batch', listing_visibility: 'hidden', description: 'b' })).toEqual([]);
    const m = (await c.sys.listAuthMounts()).get('kw-a')!;
    expect(m).toMatchObject({
      type: 'cloud',
      description: 'b',
      local: true,
      config: { default_lease_ttl: 3600, max_lease_ttl: 7200, token_type: 'default-batch', listing_visibility: 'hidden' },
    });
    // A mount without settings reads as the defaults, listing_visibility "" included.
    await c.sys.enableAuth('kw-plain', { type: 'cloud' });
    expect((await c.sys.listAuthMounts()).get('kw-plain')).toMatchObject({
      local: false,
      config: { default_lease_ttl: 0, max_lease_ttl: 0, token_type: 'default-service', listing_visibility: '' },
    });
    await expect(c.sys.tune('kw-a', { token_type: 'forever' })).rejects.toThrow(/HTTP 400/);
  });

  test('remount keeps accessor and roles; resolves once the migration succeeded', async () => {
    const c = client(server);
    await c.sys.enableAuth('kw-from', { type: 'cloud' });
    await c.cloud('kw-from').writeRole('web', { type: 'iam', bound_service_accounts: ['web@p.iam.gserviceaccount.com'] });
    const accessor = (await c.sys.listAuthMounts()).get('kw-from')!.accessor;
    expect(await c.sys.remount('kw-from', 'team/kw-to', { pollMs: 5 })).toEqual([]);
    const mounts = await c.sys.listAuthMounts();
    expect(mounts.has('kw-from')).toBe(false);
    expect(mounts.get('team/kw-to')!.accessor).toBe(accessor);
    expect(await c.cloud('team/kw-to').readRole('web')).toMatchObject({ type: 'iam', bound_service_accounts: ['web@p.iam.gserviceaccount.com'] });
    const taken = await c.sys.remount('team/kw-to', 'kw-plain').catch((e: unknown) => e);
    expect(VaultClientError.is(taken) && taken.status).toBe(400);
  });

  test('write calls resolve to the server warnings in keyward names', async () => {
    const c = client(server);
    const w = await c.sys.tune('kw-plain', { description: 'x', ...({ gce_alias: 'role_id' } as object) });
    expect(w.join(' ')).toMatch(/vm_alias|gce_alias/);
    if (server === 'vault') expect(w.join(' ')).toContain('vm_alias');
    vault.problems.length = 0;
  });
});

test('Vault: a failed migration throws with what happened; status polled until then', async () => {
  const c = client('vault');
  await c.sys.enableAuth('kw-fail', { type: 'cloud' });
  vault.remountOptions.failNext = true;
  await expect(c.sys.remount('kw-fail', 'kw-elsewhere', { pollMs: 5 })).rejects.toThrow(/moving auth\/kw-fail\/ to auth\/kw-elsewhere\/ failed/);
  const reads = vault.requests.filter((r) => r.path.startsWith('/v1/sys/remount/status/'));
  expect(reads.length).toBe(3 + 3); // two "in-progress" reads then the result, for each migration so far
  expect(vault.mounts.has('kw-fail')).toBe(true);
});

test('Vault: a migration status the server lost (404: a restart or a leader change) is settled by the mount table, at once', async () => {
  const c = client('vault');
  await c.sys.enableAuth('kw-lost', { type: 'cloud' });
  vault.remountOptions.forgetNext = true;
  const started = Date.now();
  // A short bound: before the fix a 404 read as "no status yet" and the client polled to the bound.
  expect(await c.sys.remount('kw-lost', 'kw-found', { pollMs: 5, timeoutMs: 2000 })).toEqual([]);
  expect(Date.now() - started).toBeLessThan(1500);
  expect([vault.mounts.has('kw-found'), vault.mounts.has('kw-lost')]).toEqual([true, false]);
});

test('Vault: rotate-root returns the new private_key_id', async () => {
  const c = client('vault');
  await c.sys.enableAuth('kw-rot', { type: 'cloud' });
  await c.cloud('kw-rot').writeConfig({ credentials: JSON.stringify({ type: 'service_account', private_key_id: 'k0', client_email: 'v@p.iam.gserviceaccount.com' }) });
  const { private_key_id } = await c.cloud('kw-rot').rotateRoot();
  expect(private_key_id).not.toBe('k0');
  expect((await c.cloud('kw-rot').readConfig())?.private_key_id).toBe(private_key_id);
});
