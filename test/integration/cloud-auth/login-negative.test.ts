// The negative login matrix: every malformed, forged, expired, unbound or misdirected JWT is
// refused with a 4xx, a clear error, and no token.

import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { ManualClock } from '../../../src/engine/clock';
import type { CloudEmulator } from '../../../src/cloud-emulator';
import { api, startTestEngine, type ApiResult } from '../../support/engine';
import { SA, audience, login, mountCloudAuth, startCloudFixture, writeRoles } from '../../support/cloud-fixture';

const b64u = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const parts = (jwt: string) => jwt.split('.');
const decode = (p: string) => JSON.parse(Buffer.from(p, 'base64url').toString());

function refused(r: ApiResult, status: number, pattern: RegExp) {
  expect({ status: r.status, error: r.body?.errors?.[0] }).toEqual({ status, error: expect.stringMatching(pattern) });
  expect(r.body.auth ?? null).toBeNull();
}

describe('cloud auth login refusals', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  let engine: Awaited<ReturnType<typeof startTestEngine>>;
  let emu: CloudEmulator;
  const now = () => Math.floor(clock.now() / 1000);
  const saJwt = (o: Partial<Parameters<CloudEmulator['mintServiceAccountJwt']>[0]> = {}) =>
    emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('iam'), ...o });
  const vmJwt = (instance: string, role: string, claims?: Record<string, unknown>) => emu.mintInstanceToken({ instance, audience: audience(role), claims });

  beforeAll(async () => {
    emu = await startCloudFixture({ clock });
    engine = await startTestEngine({ clock });
    await mountCloudAuth(engine, emu);
    const roles: Record<string, unknown> = {
      iam: { type: 'iam', bound_service_accounts: [SA.app.email, SA.deleted.email, SA.disabled.email] },
      'iam-proj-b': { type: 'iam', bound_service_accounts: '*', bound_projects: 'proj-b' },
      'iam-cidr': { type: 'iam', bound_service_accounts: '*', token_bound_cidrs: '10.0.0.0/8' },
      'iam-vm-other': { type: 'iam', bound_service_accounts: SA.other.email },
      'vm-zone': { type: 'vm', bound_zones: 'us-west1-a' },
      'vm-region': { type: 'vm', bound_regions: 'europe-west1' },
      'vm-group': { type: 'vm', bound_zones: 'us-east1-b', bound_instance_groups: 'empty-group' },
      'vm-label': { type: 'vm', bound_labels: 'env:dev' },
      'vm-proj': { type: 'vm', bound_projects: 'proj-b' },
      'vm-sa': { type: 'vm', bound_service_accounts: SA.other.email },
      vm: { type: 'vm' },
    };
    await writeRoles(engine, roles);
  });
  afterAll(async () => {
    await engine?.close();
    await emu?.close();
  });

  it('accepts the baseline JWT the forgeries start from', async () => {
    expect((await login(engine, 'iam', saJwt())).status).toBe(200);
  });

  it('refuses alg none', async () => {
    const [h, p] = parts(saJwt());
    refused(await login(engine, 'iam', `${b64u({ ...decode(h), alg: 'none' })}.${p}.`), 400, /algorithm "none" is not allowed/);
  });

  it('refuses HS256 signed with the public key', async () => {
    const [h, p] = parts(saJwt());
    const header = b64u({ ...decode(h), alg: 'HS256' });
    const kid = decode(h).kid as string;
    const pub = emu.keys.accounts.get(SA.app.email)!.user[0].publicKey.export({ type: 'spki', format: 'pem' });
    const mac = createHmac('sha256', pub).update(`${header}.${p}`).digest('base64url');
    expect(kid).toBeTruthy();
    refused(await login(engine, 'iam', `${header}.${p}.${mac}`), 400, /algorithm "HS256" is not allowed/);
  });

  it('refuses RS256 signed by another key under a known kid', async () => {
    const [h, p] = parts(saJwt());
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const sig = sign('RSA-SHA256', Buffer.from(`${h}.${p}`), privateKey).toString('base64url');
    refused(await login(engine, 'iam', `${h}.${p}.${sig}`), 400, /signature verification failed/);
  });

  it('refuses a tampered payload', async () => {
    const [h, p, s] = parts(saJwt());
    const claims = decode(p);
    const forged = b64u({ ...claims, exp: claims.exp + 1 });
    refused(await login(engine, 'iam', `${h}.${forged}.${s}`), 400, /signature verification failed/);
    // Swapping the subject moves the key lookup to the other account, which has no such key id.
    refused(await login(engine, 'iam', `${h}.${b64u({ ...claims, sub: SA.other.email })}.${s}`), 400, /unknown key id/);
  });

  it('refuses expired JWTs and JWTs without exp', async () => {
    refused(await login(engine, 'iam', saJwt({ now: now() - 1000, ttl: 300 })), 400, /expired or does not have proper 'exp'/);
    refused(await login(engine, 'iam', saJwt({ ttl: null })), 400, /expired or does not have proper 'exp'/);
  });

  it('refuses exp beyond max_jwt_exp and asks for a shorter exp', async () => {
    refused(await login(engine, 'iam', saJwt({ ttl: 1800 })), 400, /expire within 900 seconds.*shorter 'exp'/);
  });

  it('refuses a wrong or missing audience', async () => {
    refused(await login(engine, 'iam', saJwt({ audience: audience('other-role') })), 400, /'aud' must end in "vault\/iam"/);
    refused(await login(engine, 'iam', saJwt({ audience: null })), 400, /'aud' must end in/);
  });

  it('refuses an unknown key id', async () => {
    const [h, p, s] = parts(saJwt());
    refused(await login(engine, 'iam', `${b64u({ ...decode(h), kid: 'f'.repeat(40) })}.${p}.${s}`), 400, /unknown key id/);
  });

  it('refuses a service account that is not bound, or outside the bound projects', async () => {
    const other = emu.mintServiceAccountJwt({ account: SA.other.email, audience: audience('iam') });
    refused(await login(engine, 'iam', other), 400, /is not authorized for role/);
    refused(await login(engine, 'iam-proj-b', saJwt({ audience: audience('iam-proj-b') })), 400, /not in bound projects \[proj-b\]/);
  });

  it('refuses deleted and disabled service accounts', async () => {
    const gone = emu.mintServiceAccountJwt({ account: SA.deleted.email, audience: audience('iam') });
    refused(await login(engine, 'iam', gone), 400, /not found/);
    const off = emu.mintServiceAccountJwt({ account: SA.disabled.email, audience: audience('iam') });
    refused(await login(engine, 'iam', off), 400, /is disabled/);
  });

  it('refuses a missing role', async () => {
    refused(await login(engine, 'nope', saJwt({ audience: audience('nope') })), 400, /role "nope" not found/);
  });

  it('refuses a login from outside token_bound_cidrs with 403', async () => {
    refused(await login(engine, 'iam-cidr', saJwt({ audience: audience('iam-cidr') })), 403, /permission denied/);
  });

  it('refuses a service-account JWT on a vm role and an instance token on an iam role of another account', async () => {
    refused(await login(engine, 'vm', saJwt({ audience: audience('vm') })), 400, /no provider OAuth2 key found for VM role/);
    refused(await login(engine, 'iam-vm-other', vmJwt('web-1', 'iam-vm-other')), 400, /is not authorized for role/);
  });

  it('refuses instances outside the bound zone, region, group, labels, project or accounts', async () => {
    refused(await login(engine, 'vm-zone', vmJwt('web-1', 'vm-zone')), 400, /not in bound zones \["us-west1-a"\]/);
    refused(await login(engine, 'vm-region', vmJwt('web-1', 'vm-region')), 400, /not in bound regions \["europe-west1"\]/);
    refused(await login(engine, 'vm-group', vmJwt('web-1', 'vm-group')), 400, /not part of instance groups \["empty-group"\]/);
    refused(await login(engine, 'vm-label', vmJwt('web-1', 'vm-label')), 400, /missing bound label "env:dev"/);
    refused(await login(engine, 'vm-proj', vmJwt('web-1', 'vm-proj')), 400, /not in bound projects \["proj-b"\]/);
    refused(await login(engine, 'vm-sa', vmJwt('web-1', 'vm-sa')), 400, /not in bound service accounts/);
  });

  it('refuses an instance that does not exist or is not running', async () => {
    const ce = { project_id: 'proj-a', project_number: 1001, zone: 'us-east1-b', instance_id: '9999', instance_name: 'ghost', instance_creation_timestamp: 1767225600 };
    refused(await login(engine, 'vm', vmJwt('web-1', 'vm', { google: { compute_engine: ce } })), 400, /instance: ghost\): instance not found/);
    refused(await login(engine, 'vm', vmJwt('stopped-1', 'vm')), 400, /invalid status 'TERMINATED'/);
  });

  it('refuses a vm token that lacks compute_engine claims', async () => {
    refused(await login(engine, 'vm', vmJwt('web-1', 'vm', { google: undefined })), 400, /expected JWT to have claims with VM metadata/);
  });

  it('refuses a malformed JWT and unknown login fields', async () => {
    refused(await login(engine, 'iam', 'not-a-jwt'), 400, /unable to parse signed JWT/);
    const r = await api(engine, 'POST', 'auth/cloud/login', { token: null, body: { role: 'iam', jwt: saJwt(), extra: 1 } });
    refused(r, 422, /unknown fields: \["extra"\]/);
  });

  it('fails closed with 500 and no token when the provider cannot be reached', async () => {
    const down = 'http://127.0.0.1:1';
    await mountCloudAuth(engine, emu, 'cloud-down', { custom_endpoint: { api: down, iam: down, crm: down, compute: down } });
    await api(engine, 'POST', 'auth/cloud-down/role/iam', { body: { type: 'iam', bound_service_accounts: '*' } });
    refused(await login(engine, 'iam', saJwt(), 'cloud-down'), 500, /cannot fetch the provider OAuth2 certificates/);
  });
});
