// Engine and cloud emulator on loopback: iam logins (self-signed and provider-signed JWTs), vm
// login, VM inference into an iam role, group aliases, token metadata and renewal re-checks.

import { ManualClock } from '../../../src/engine/clock';
import type { CloudEmulator } from '../../../src/cloud-emulator';
import { api, startTestEngine } from '../../support/engine';
import { FOLDER_INNER, FOLDER_OUTER, ORG_ID, SA, audience, login, mountCloudAuth, startCloudFixture, writeRoles } from '../../support/cloud-fixture';

describe('cloud auth login against the emulator', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  let engine: Awaited<ReturnType<typeof startTestEngine>>;
  let emu: CloudEmulator;

  beforeAll(async () => {
    emu = await startCloudFixture({ clock });
    engine = await startTestEngine({ clock });
    await mountCloudAuth(engine, emu);
    const roles: Record<string, unknown> = {
      'iam-app': { type: 'iam', bound_service_accounts: [SA.app.email], token_policies: 'dev,ops', token_ttl: '1h', add_group_aliases: true },
      'iam-vm': { type: 'iam', bound_service_accounts: [SA.vm.uniqueId], allow_vm_inference: true },
      'iam-novm': { type: 'iam', bound_service_accounts: [SA.vm.email], allow_vm_inference: false },
      'vm-web': { type: 'vm', bound_projects: 'proj-a', bound_zones: 'us-east1-b', bound_labels: 'env:prod', bound_instance_groups: 'web-group', add_group_aliases: true },
      'vm-regional': { type: 'vm', bound_regions: 'us-west1', bound_instance_groups: 'web-regional' },
    };
    await writeRoles(engine, roles);
  });
  afterAll(async () => {
    await engine?.close();
    await emu?.close();
  });

  it('logs in with a self-signed service-account JWT', async () => {
    const jwt = emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('iam-app') });
    const r = await login(engine, 'iam-app', jwt);
    expect(r.status).toBe(200);
    const auth = r.body.auth;
    expect(auth.client_token).toEqual(expect.any(String));
    expect(auth.policies).toEqual(['default', 'dev', 'ops']);
    expect(auth.lease_duration).toBe(3600);
    expect(auth.metadata).toEqual({
      project_id: 'proj-a',
      role: 'iam-app',
      service_account_email: SA.app.email,
      service_account_id: SA.app.uniqueId,
    });
    const entity = await api(engine, 'GET', `identity/entity/id/${auth.entity_id}`);
    expect(entity.status).toBe(200);
    expect(entity.body.data.group_aliases).toEqual([`project-proj-a`, `folder-${FOLDER_INNER}`, `folder-${FOLDER_OUTER}`, `organization-${ORG_ID}`]);
    const role = await api(engine, 'GET', 'auth/cloud/role/iam-app');
    expect(entity.body.data.aliases[0].name).toBe(role.body.data.role_id);
  });

  it('logs in with a provider-signed JWT (signJwt) and with a second user key', async () => {
    const signed = emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('iam-app'), providerSigned: true });
    expect((await login(engine, 'iam-app', signed)).status).toBe(200);
    const second = emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('iam-app'), keyIndex: 1 });
    expect((await login(engine, 'iam-app', second)).status).toBe(200);
  });

  it('logs in through the signJwt REST endpoint with an access token', async () => {
    const { request } = await import('undici');
    const tok = await request(`${emu.url}/computeMetadata/v1/instance/service-accounts/default/token`, { headers: { 'Metadata-Flavor': 'Google' } });
    const { access_token } = (await tok.body.json()) as { access_token: string };
    const now = Math.floor(clock.now() / 1000);
    const res = await request(`${emu.url}/v1/projects/-/serviceAccounts/${SA.app.email}:signJwt`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ payload: JSON.stringify({ sub: SA.app.email, aud: audience('iam-app'), exp: now + 600 }) }),
    });
    const { signedJwt } = (await res.body.json()) as { signedJwt: string };
    expect((await login(engine, 'iam-app', signedJwt)).status).toBe(200);
  });

  it('logs in a VM and checks zone, label and zonal instance group', async () => {
    const jwt = emu.mintInstanceToken({ instance: 'web-1', audience: audience('vm-web') });
    const r = await login(engine, 'vm-web', jwt);
    expect(r.status).toBe(200);
    expect(r.body.auth.metadata).toEqual({
      instance_creation_timestamp: String(Date.parse('2026-01-01T00:00:00Z') / 1000),
      instance_id: '5001',
      instance_name: 'web-1',
      project_id: 'proj-a',
      project_number: '1001',
      role: 'vm-web',
      service_account_email: SA.vm.email,
      service_account_id: SA.vm.uniqueId,
      zone: 'us-east1-b',
    });
    const entity = await api(engine, 'GET', `identity/entity/id/${r.body.auth.entity_id}`);
    expect(entity.body.data.group_aliases).toContain(`organization-${ORG_ID}`);
  });

  it('logs in a VM through a regional instance group', async () => {
    const jwt = emu.mintInstanceToken({ instance: 'web-2', audience: audience('vm-regional') });
    expect((await login(engine, 'vm-regional', jwt)).status).toBe(200);
  });

  it('lets an instance token into an iam role only with allow_vm_inference', async () => {
    const ok = await login(engine, 'iam-vm', emu.mintInstanceToken({ instance: 'web-1', audience: audience('iam-vm') }));
    expect(ok.status).toBe(200);
    expect(ok.body.auth.metadata.service_account_email).toBe(SA.vm.email);
    const refused = await login(engine, 'iam-novm', emu.mintInstanceToken({ instance: 'web-1', audience: audience('iam-novm') }));
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatch(/allow_vm_inference is false/);
    expect(refused.body.auth).toBeUndefined();
  });

  it('renews a token while the role and identity still match, and refuses once the role no longer binds the account', async () => {
    await api(engine, 'POST', 'auth/cloud/role/renew-me', { body: { type: 'iam', bound_service_accounts: SA.app.email, token_ttl: 600 } });
    const r = await login(engine, 'renew-me', emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('renew-me') }));
    const token = r.body.auth.client_token;
    const renewed = await api(engine, 'POST', 'auth/token/renew-self', { token });
    expect(renewed.status).toBe(200);
    await api(engine, 'POST', 'auth/cloud/role/renew-me', { body: { bound_service_accounts: SA.other.email } });
    const refused = await api(engine, 'POST', 'auth/token/renew-self', { token });
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/could not renew token for role renew-me/);
  });

  it('renews a vm token by re-reading the instance', async () => {
    const r = await login(engine, 'vm-web', emu.mintInstanceToken({ instance: 'web-1', audience: audience('vm-web') }));
    const renewed = await api(engine, 'POST', 'auth/token/renew-self', { token: r.body.auth.client_token });
    expect(renewed.status).toBe(200);
  });
});
