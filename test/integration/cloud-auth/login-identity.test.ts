// Alias names and metadata selection at login: iam_alias / vm_alias, metadata lists (subset,
// none), group aliases only when add_group_aliases is set, and renewal after the role is deleted.

import { ManualClock } from '../../../src/engine/clock';
import type { CloudEmulator } from '../../../src/cloud-emulator';
import { api, startTestEngine } from '../../support/engine';
import { SA, audience, login, mountCloudAuth, startCloudFixture } from '../../support/cloud-fixture';

describe('cloud auth login identity', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  let engine: Awaited<ReturnType<typeof startTestEngine>>;
  let emu: CloudEmulator;
  const entity = async (id: string) => (await api(engine, 'GET', `identity/entity/id/${id}`)).body.data;

  beforeAll(async () => {
    emu = await startCloudFixture({ clock, pageSize: 1 });
    engine = await startTestEngine({ clock });
    await mountCloudAuth(engine, emu);
    await mountCloudAuth(engine, emu, 'cloud-alt', { iam_alias: 'unique_id', vm_alias: 'instance_id', iam_metadata: 'role', vm_metadata: [] });
    for (const mount of ['cloud', 'cloud-alt']) {
      await api(engine, 'POST', `auth/${mount}/role/app`, { body: { type: 'iam', bound_service_accounts: SA.app.email, token_policies: 'dev' } });
      await api(engine, 'POST', `auth/${mount}/role/web`, { body: { type: 'vm', bound_zones: 'us-east1-b', bound_instance_groups: 'web-group' } });
    }
  });
  afterAll(async () => {
    await engine?.close();
    await emu?.close();
  });

  it('uses role_id aliases by default and no group aliases without add_group_aliases', async () => {
    const r = await login(engine, 'app', emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('app') }));
    expect(r.status).toBe(200);
    const e = await entity(r.body.auth.entity_id);
    const role = (await api(engine, 'GET', 'auth/cloud/role/app')).body.data;
    expect(e.aliases[0].name).toBe(role.role_id);
    // Vault and OpenBao name the alias's mount by its full path (measured: test/real/logins.test.ts).
    expect(e.aliases[0].mount_path).toBe('auth/cloud/');
    expect(e.group_aliases ?? []).toEqual([]);
  });

  it('uses the unique id for iam_alias=unique_id and the selected metadata keys only', async () => {
    const r = await login(engine, 'APP', emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('APP') }), 'cloud-alt');
    expect(r.status).toBe(200);
    expect(r.body.auth.metadata).toEqual({ role: 'APP' });
    const e = await entity(r.body.auth.entity_id);
    expect(e.aliases.map((a: { name: string }) => a.name)).toContain(SA.app.uniqueId);
  });

  it('uses vm-<instance id> for vm_alias=instance_id and no metadata for an empty list (paged group list)', async () => {
    const r = await login(engine, 'web', emu.mintInstanceToken({ instance: 'web-1', audience: audience('web') }), 'cloud-alt');
    expect(r.status).toBe(200);
    expect(r.body.auth.metadata ?? {}).toEqual({});
    const e = await entity(r.body.auth.entity_id);
    expect(e.aliases.map((a: { name: string }) => a.name)).toContain('vm-5001');
  });

  it('refuses renewal once the role is deleted', async () => {
    const r = await login(engine, 'app', emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('app') }));
    await api(engine, 'DELETE', 'auth/cloud/role/app');
    const renew = await api(engine, 'POST', 'auth/token/renew-self', { token: r.body.auth.client_token });
    expect(renew.status).toBe(400);
    expect(renew.text).toMatch(/role \\"app\\" no longer exists/);
  });

  it('bounds JWT lifetime by the injected clock: a JWT minted before a clock jump is expired after it', async () => {
    await api(engine, 'POST', 'auth/cloud/role/later', { body: { type: 'iam', bound_service_accounts: SA.app.email } });
    const jwt = emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('later'), ttl: 300 });
    await clock.advance(301_000 + 60_000);
    const r = await login(engine, 'later', jwt);
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatch(/expired/);
  });

  it('re-checks the identity at renewal once cached lookups expire (account deleted)', async () => {
    await api(engine, 'POST', 'auth/cloud/role/other', { body: { type: 'iam', bound_service_accounts: SA.other.email, token_bound_cidrs: '127.0.0.0/8' } });
    const r = await login(engine, 'other', emu.mintServiceAccountJwt({ account: SA.other.email, audience: audience('other') }));
    expect(r.status).toBe(200);
    const token = r.body.auth.client_token;
    const self = await api(engine, 'GET', 'auth/token/lookup-self', { token });
    expect(self.body.data.bound_cidrs).toEqual(['127.0.0.0/8']);
    expect((await api(engine, 'POST', 'auth/token/renew-self', { token })).status).toBe(200);
    emu.description.serviceAccounts.find((a) => a.email === SA.other.email)!.deleted = true;
    await clock.advance(61_000);
    const renew = await api(engine, 'POST', 'auth/token/renew-self', { token });
    expect(renew.status).toBe(400);
    expect(renew.text).toMatch(/could not renew token for role other: service account .* not found/);
  });
});
