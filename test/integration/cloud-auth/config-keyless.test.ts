// The config's keyless fields over HTTP: workload identity federation and rotation fields are
// stored, merged on update, validated with Vault's rules (errors name the fields) and read back in
// Vault's shape (integer seconds, identity_token_ttl defaulting to 3600).

import { generateKeyPairSync } from 'node:crypto';
import { api, startTestEngine } from '../../support/engine';

const SA_EMAIL = 'federated@ops-x.iam.gserviceaccount.com';
const AUDIENCE = 'https://iam.googleapis.com/projects/4242/locations/global/workloadIdentityPools/pool-x/providers/prov-x';

function keyJson(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return JSON.stringify({ type: 'service_account', project_id: 'p', private_key_id: 'kid-1', private_key: pem, client_email: 'k@p.iam.gserviceaccount.com', client_id: '1' });
}

describe('cloud auth config: keyless fields', () => {
  let engine: Awaited<ReturnType<typeof startTestEngine>>;
  let n = 0;
  let mount = '';
  const cfg = (body: unknown) => api(engine, 'POST', `auth/${mount}/config`, { body });
  const read = async () => (await api(engine, 'GET', `auth/${mount}/config`)).body.data;

  beforeAll(async () => {
    engine = await startTestEngine();
  });
  afterAll(() => engine?.close());
  beforeEach(async () => {
    mount = `kl${++n}`;
    expect((await api(engine, 'POST', `sys/auth/${mount}`, { body: { type: 'cloud' } })).status).toBeLessThan(300);
  });

  it('reads Vault defaults before any write', async () => {
    const d = await read();
    expect(d).toMatchObject({
      identity_token_audience: '',
      // Stored only when sent, as Vault (pluginidentityutil GetOk): unset reads 0, the issuer uses 1h.
      identity_token_ttl: 0,
      rotation_schedule: '',
      rotation_window: 0,
      rotation_period: 0,
      disable_automated_rotation: false,
    });
    expect(d.service_account_email).toBeUndefined();
  });

  it('stores a federation config and reads durations as integer seconds', async () => {
    const w = await cfg({ service_account_email: SA_EMAIL, identity_token_audience: AUDIENCE, identity_token_ttl: '30m' });
    expect(w.status).toBe(204);
    expect(await read()).toMatchObject({ service_account_email: SA_EMAIL, identity_token_audience: AUDIENCE, identity_token_ttl: 1800 });
  });

  it('merges: a later write of one field keeps the others', async () => {
    await cfg({ service_account_email: SA_EMAIL, identity_token_audience: AUDIENCE, rotation_period: '2h' });
    await cfg({ iam_alias: 'unique_id' });
    await cfg({ identity_token_ttl: 600 });
    expect(await read()).toMatchObject({
      service_account_email: SA_EMAIL,
      identity_token_audience: AUDIENCE,
      identity_token_ttl: 600,
      rotation_period: 7200,
      iam_alias: 'unique_id',
    });
  });

  it('refuses credentials beside identity_token_audience, also across writes', async () => {
    const both = await cfg({ credentials: keyJson(), service_account_email: SA_EMAIL, identity_token_audience: AUDIENCE });
    expect(both.status).toBe(400);
    expect(both.body.errors[0]).toBe("only one of 'credentials' or 'identity_token_audience' can be set");
    expect((await cfg({ credentials: keyJson() })).status).toBe(204);
    const later = await cfg({ service_account_email: SA_EMAIL, identity_token_audience: AUDIENCE });
    expect(later.status).toBe(400);
    expect(later.body.errors[0]).toMatch(/credentials.*identity_token_audience/);
    // Switching to federation in one write that clears the key is accepted.
    expect((await cfg({ credentials: '', service_account_email: SA_EMAIL, identity_token_audience: AUDIENCE })).status).toBe(204);
    expect((await read()).client_email).toBeUndefined();
  });

  it('requires service_account_email with identity_token_audience', async () => {
    const r = await cfg({ identity_token_audience: AUDIENCE });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toBe("missing required 'service_account_email' when 'identity_token_audience' is set");
    const notEmail = await cfg({ service_account_email: 'not-an-email', identity_token_audience: AUDIENCE });
    expect(notEmail.status).toBe(400);
    expect(notEmail.body.errors[0]).toMatch(/service_account_email/);
  });

  it('keeps rotation_schedule and rotation_period mutually exclusive', async () => {
    const r = await cfg({ rotation_schedule: '0 3 * * *', rotation_period: 3600 });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatch(/mutually exclusive fields rotation_schedule and rotation_period/);
    expect((await cfg({ rotation_period: 3600 })).status).toBe(204);
    expect((await cfg({ rotation_schedule: '0 3 * * *' })).status).toBe(400);
    // Moving from period to schedule in one write (period reset to 0) works.
    expect((await cfg({ rotation_schedule: '0 3 * * *', rotation_period: 0 })).status).toBe(204);
    expect(await read()).toMatchObject({ rotation_schedule: '0 3 * * *', rotation_period: 0 });
  });

  it('requires rotation_schedule for rotation_window and validates the cron expression', async () => {
    const w = await cfg({ rotation_window: 3600 });
    expect(w.status).toBe(400);
    expect(w.body.errors[0]).toBe('cannot use rotation_window without rotation_schedule');
    const cron = await cfg({ rotation_schedule: '61 * * * *' });
    expect(cron.status).toBe(400);
    expect(cron.body.errors[0]).toMatch(/failed to parse provided rotation_schedule: minute value "61"/);
    const fields = await cfg({ rotation_schedule: '* *' });
    expect(fields.body.errors[0]).toMatch(/rotation_schedule: expected exactly 5 fields, found 2/);
    // Vault's rotation parser (robfig/cron without descriptors) refuses @daily and the like.
    const descriptor = await cfg({ rotation_schedule: '@daily' });
    expect(descriptor.status).toBe(400);
    expect(descriptor.body.errors[0]).toMatch(/failed to parse provided rotation_schedule: descriptors such as "@daily" are not accepted/);
    expect((await cfg({ rotation_schedule: '0 0 * * *', rotation_window: '2h', disable_automated_rotation: true })).status).toBe(204);
    expect(await read()).toMatchObject({ rotation_schedule: '0 0 * * *', rotation_window: 7200, disable_automated_rotation: true });
    // The window is checked against the schedule of the same request, as Vault does (issue 29,
    // defect 5): with a schedule stored, a window-only change is still refused.
    const only = await cfg({ rotation_window: '3h' });
    expect(only.body.errors).toEqual(['cannot use rotation_window without rotation_schedule']);
    expect((await cfg({ rotation_schedule: '0 0 * * *', rotation_window: '3h' })).status).toBe(204);
  });

  it('refuses negative durations and non-durations, naming the field', async () => {
    const neg = await cfg({ identity_token_ttl: -5 });
    expect(neg.status).toBe(400);
    expect(neg.body.errors[0]).toMatch(/identity_token_ttl/);
    const word = await cfg({ rotation_period: 'often' });
    expect(word.status).toBe(400);
    expect(word.body.errors[0]).toMatch(/rotation_period/);
  });
});
