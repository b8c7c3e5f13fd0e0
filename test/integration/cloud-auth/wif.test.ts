// Keyless cloud auth end to end over loopback: engines sign plugin identity tokens, the cloud
// emulator's STS verifies them against the engine's JWKS fetched over HTTP, and its IAM Credentials
// impersonates the configured service account; iam and vm logins then work with no key anywhere.
// Wrong audience, expired and foreign-signed subject tokens and a service account the principal may
// not impersonate are refused with errors naming the step; the emulator records what it saw.

import { ManualClock } from '../../../src/engine/clock';
import { startCloudEmulator, type CloudEmulator } from '../../../src/cloud-emulator';
import { api, startTestEngine } from '../../support/engine';
import { FIXTURE_KEY_DIR, SA, audience, emulatorEndpoints, login, poolProviderAudience, withWorkloadIdentityPool, writeRoles } from '../../support/cloud-fixture';

type Engine = Awaited<ReturnType<typeof startTestEngine>>;

const POOL = 'keyward-pool';
const providerAudience = (provider: string) => poolProviderAudience(POOL, provider);
const issuerOf = (e: { url: string }) => `${e.url}/v1/identity/oidc/plugins`;

describe('workload identity federation against the emulator', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  // Two hours behind the emulator: every token it signs has expired by the emulator's clock.
  const lateClock = new ManualClock(Date.UTC(2026, 0, 1) - 2 * 3600_000);
  let main: Engine;
  let late: Engine;
  let forger: Engine;
  let emu: CloudEmulator;

  const configure = async (engine: Engine, mount: string, body: Record<string, unknown>) => {
    expect((await api(engine, 'POST', `sys/auth/${mount}`, { body: { type: 'cloud' } })).status).toBeLessThan(300);
    const w = await api(engine, 'POST', `auth/${mount}/config`, {
      body: { custom_endpoint: { ...emulatorEndpoints(emu), sts: emu.url, iamcredentials: emu.url }, ...body },
    });
    expect(w.status).toBe(204);
    await writeRoles(engine, { 'iam-app': { type: 'iam', bound_service_accounts: [SA.app.email] }, 'vm-any': { type: 'vm', bound_projects: 'proj-a' } }, mount);
  };
  const accessor = async (engine: Engine, mount: string) => (await api(engine, 'GET', 'sys/auth')).body.data[`${mount}/`].accessor as string;
  // The login JWT is minted on the engine's own clock (the late engine would find it in the future).
  const iamLogin = (engine: Engine, mount: string) =>
    login(engine, 'iam-app', emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('iam-app'), now: Math.floor(engine.clock.now() / 1000) }), mount);

  beforeAll(async () => {
    main = await startTestEngine({ clock });
    late = await startTestEngine({ clock: lateClock });
    // Claims to be the main engine's issuer but signs with its own key.
    forger = await startTestEngine({ clock, apiAddr: main.url });
    const provider = (id: string, issuer: string) => ({ id, issuerUri: issuer, attributeCondition: 'assertion.sub.startsWith("plugin-identity:root:auth:")' });
    emu = await startCloudEmulator({
      description: withWorkloadIdentityPool(POOL, [
        provider('engine-main', issuerOf(main)),
        provider('engine-late', issuerOf(late)),
        { ...provider('engine-aud', issuerOf(main)), allowedAudiences: ['https://other.example/aud'] },
        // The team namespace has its own issuer and key; its subjects name its namespace id.
        {
          id: 'engine-team',
          issuerUri: `${main.url}/v1/team/identity/oidc/plugins`,
          attributeCondition: 'assertion.sub.startsWith("plugin-identity:") && !(assertion.sub.startsWith("plugin-identity:root:"))',
        },
      ]),
      clock,
      keyDir: FIXTURE_KEY_DIR,
    });
    await configure(main, 'wif', { service_account_email: SA.keyward.email, identity_token_audience: providerAudience('engine-main') });
  });
  afterAll(async () => {
    for (const e of [main, late, forger]) await e?.close();
    await emu?.close();
  });

  it('serves OpenID discovery and keys for plugin identity tokens without a token', async () => {
    const disco = await api(main, 'GET', 'identity/oidc/plugins/.well-known/openid-configuration', { token: null });
    expect(disco.status).toBe(200);
    expect(disco.body).toMatchObject({ issuer: issuerOf(main), jwks_uri: `${issuerOf(main)}/.well-known/keys`, id_token_signing_alg_values_supported: ['RS256'] });
    // No key before the namespace first signs: a read makes none (issue 32); the next test signs.
    const keys = await api(main, 'GET', 'identity/oidc/plugins/.well-known/keys', { token: null });
    expect(keys.status).toBe(200);
    expect(keys.body).toEqual({ keys: [] });
  });

  it('logs in with iam and vm roles with no credentials stored anywhere', async () => {
    const cfg = (await api(main, 'GET', 'auth/wif/config')).body.data;
    expect(cfg).toMatchObject({ service_account_email: SA.keyward.email, identity_token_audience: providerAudience('engine-main'), identity_token_ttl: 0 }); // unset reads 0, as on Vault; tokens live 1h
    expect(cfg.client_email).toBeUndefined();
    expect(cfg.private_key_id).toBeUndefined();
    const before = { exchanges: emu.records.exchanges.length, impersonations: emu.records.impersonations.length };

    const iam = await iamLogin(main, 'wif');
    expect(iam.status).toBe(200);
    expect(iam.body.auth.metadata.service_account_email).toBe(SA.app.email);
    const vm = await login(main, 'vm-any', emu.mintInstanceToken({ instance: 'web-1', audience: audience('vm-any') }), 'wif');
    expect(vm.status).toBe(200);
    expect(vm.body.auth.metadata.instance_name).toBe('web-1');

    // The emulator saw the exchange of the mount's identity token and the impersonation.
    const sub = `plugin-identity:root:auth:${await accessor(main, 'wif')}`;
    const exchanges = emu.records.exchanges.slice(before.exchanges);
    expect(exchanges).toEqual([expect.objectContaining({ ok: true, subject: sub, audience: providerAudience('engine-main').replace(/^https:/, '') })]);
    expect(emu.records.impersonations.slice(before.impersonations)).toEqual([
      expect.objectContaining({ ok: true, serviceAccount: SA.keyward.email, principal: expect.stringContaining(`/workloadIdentityPools/${POOL}/subject/${sub}`) }),
    ]);
    const keys = (await api(main, 'GET', 'identity/oidc/plugins/.well-known/keys', { token: null })).body.keys;
    expect(keys).toEqual([expect.objectContaining({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String) })]);
    expect(keys[0].d).toBeUndefined();
    // No key file, no metadata server: nothing but the federation path produced the access token.
    expect(emu.counts['token'] ?? 0).toBe(0);
    expect(emu.counts['metadata-token'] ?? 0).toBe(0);
  });

  it('accepts sts and iamcredentials overrides written as the full token URL and the /v1 root', async () => {
    await configure(main, 'wif-urls', {
      service_account_email: SA.keyward.email,
      identity_token_audience: providerAudience('engine-main'),
      custom_endpoint: { ...emulatorEndpoints(emu), sts: `${emu.url}/v1/token`, iamcredentials: `${emu.url}/v1` },
    });
    expect((await iamLogin(main, 'wif-urls')).status).toBe(200);
  });

  it('refuses a subject token whose audience the provider does not allow, naming the step', async () => {
    await configure(main, 'wif-aud', { service_account_email: SA.keyward.email, identity_token_audience: providerAudience('engine-aud') });
    const r = await iamLogin(main, 'wif-aud');
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.body.errors[0]).toMatch(/token exchange at the Security Token Service failed: .*audience in the subject token does not match/);
    expect(r.text).not.toMatch(/eyJ[\w-]+\.eyJ/); // no token echoed
    expect(emu.records.exchanges.at(-1)).toMatchObject({ ok: false, error: expect.stringMatching(/audience/) });
  });

  it('refuses an expired subject token', async () => {
    await configure(late, 'wif', { service_account_email: SA.keyward.email, identity_token_audience: providerAudience('engine-late'), identity_token_ttl: 600 });
    const r = await iamLogin(late, 'wif');
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.body.errors[0]).toMatch(/token exchange at the Security Token Service failed: .*expired/);
    expect(r.text).not.toMatch(/eyJ[\w-]+\.eyJ/);
  });

  it('refuses a subject token signed with a key the issuer does not publish', async () => {
    await configure(forger, 'wif', { service_account_email: SA.keyward.email, identity_token_audience: providerAudience('engine-main') });
    const r = await iamLogin(forger, 'wif');
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.body.errors[0]).toMatch(/token exchange at the Security Token Service failed: .*signature does not verify/);
  });

  it('refuses to impersonate a service account the federated principal has no binding on', async () => {
    await configure(main, 'wif-other', { service_account_email: SA.other.email, identity_token_audience: providerAudience('engine-main') });
    const r = await iamLogin(main, 'wif-other');
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.body.errors[0]).toMatch(new RegExp(`impersonation of ${SA.other.email.replace(/[.]/g, '\\.')} .*failed: .*403.*workloadIdentityUser`));
    expect(r.text).not.toMatch(/ya29\./);
    expect(emu.records.impersonations.at(-1)).toMatchObject({ ok: false, serviceAccount: SA.other.email });
  });

  it('signs a namespace mount with the namespace key, under the namespace issuer', async () => {
    expect((await api(main, 'POST', 'sys/namespaces/team')).status).toBe(200);
    const inTeam = { namespace: 'team' };
    expect((await api(main, 'POST', 'sys/auth/wif', { ...inTeam, body: { type: 'cloud' } })).status).toBeLessThan(300);
    const w = await api(main, 'POST', 'auth/wif/config', {
      ...inTeam,
      body: {
        service_account_email: SA.keyward.email,
        identity_token_audience: providerAudience('engine-team'),
        custom_endpoint: { ...emulatorEndpoints(emu), sts: emu.url, iamcredentials: emu.url },
      },
    });
    expect(w.status).toBe(204);
    expect((await api(main, 'POST', 'auth/wif/role/iam-app', { ...inTeam, body: { type: 'iam', bound_service_accounts: [SA.app.email] } })).status).toBeLessThan(300);
    const disco = await api(main, 'GET', 'team/identity/oidc/plugins/.well-known/openid-configuration', { token: null });
    expect(disco.body.issuer).toBe(`${main.url}/v1/team/identity/oidc/plugins`);
    const teamKeys = (await api(main, 'GET', 'team/identity/oidc/plugins/.well-known/keys', { token: null })).body.keys.map((k: { kid: string }) => k.kid);
    const rootKeys = (await api(main, 'GET', 'identity/oidc/plugins/.well-known/keys', { token: null })).body.keys.map((k: { kid: string }) => k.kid);
    expect(teamKeys.filter((k: string) => rootKeys.includes(k))).toEqual([]);

    const jwt = emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('iam-app') });
    const r = await api(main, 'POST', 'auth/wif/login', { ...inTeam, token: null, body: { role: 'iam-app', jwt } });
    expect(r.status).toBe(200);
    const nsId = (await api(main, 'GET', 'sys/namespaces/team')).body.data.id;
    const acc = (await api(main, 'GET', 'sys/auth', inTeam)).body.data['wif/'].accessor;
    expect(emu.records.exchanges.at(-1)).toMatchObject({ ok: true, subject: `plugin-identity:${nsId}:auth:${acc}` });
  });

  it('keeps verifying tokens across a rotation of the identity key', async () => {
    const oldKid = (await api(main, 'GET', 'identity/oidc/plugins/.well-known/keys', { token: null })).body.keys[0].kid;
    expect((await api(main, 'POST', 'identity/oidc/key/default/rotate', { body: {} })).status).toBe(204);
    const keys = (await api(main, 'GET', 'identity/oidc/plugins/.well-known/keys', { token: null })).body.keys.map((k: { kid: string }) => k.kid);
    expect(keys).toHaveLength(2);
    expect(keys).toContain(oldKid);
    // A fresh mount signs with the new key and still logs in.
    await configure(main, 'wif-new', { service_account_email: SA.keyward.email, identity_token_audience: providerAudience('engine-main') });
    expect((await iamLogin(main, 'wif-new')).status).toBe(200);
    expect((await api(main, 'POST', 'identity/oidc/key/other/rotate', { body: {} })).status).toBe(400);
  });
});
