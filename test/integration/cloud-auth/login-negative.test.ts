// The negative login matrix: every malformed, forged, expired, unbound or misdirected JWT is
// refused with a 4xx, a clear error, and no token.

import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { ManualClock } from '../../../src/engine/clock';
import { createLogger } from '../../../src/engine/log';
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
  const saJwt = (o: Partial<Parameters<CloudEmulator['mintServiceAccountJwt']>[0]> = {}) => emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('iam'), ...o });
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

  it('refuses malleable signatures: the +/ alphabet, padding, junk characters, non-canonical last character', async () => {
    // A signature holding both '-' or '_' (so the standard alphabet spells it differently).
    let jwt = saJwt();
    for (let i = 0; !/[-_]/.test(parts(jwt)[2]); i++) jwt = saJwt({ claims: { jti: String(i) } });
    const [h, p, s] = parts(jwt);
    expect((await login(engine, 'iam', jwt)).status).toBe(200);
    const variants = [
      s.replace(/-/g, '+').replace(/_/g, '/'),
      `${s}==`,
      `${s.slice(0, 100)} ${s.slice(100)}`,
      `${s.slice(0, 100)}\t${s.slice(100)}`,
      `${s.slice(0, 100)}*${s.slice(100)}`,
    ];
    // 256 bytes = 342 characters with 4 spare bits in the last one: flipping them keeps the bytes.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(s[s.length - 1]);
    variants.push(s.slice(0, -1) + alphabet[last ^ 1]);
    expect(Buffer.from(variants[variants.length - 1], 'base64url')).toEqual(Buffer.from(s, 'base64url'));
    for (const v of variants) refused(await login(engine, 'iam', `${h}.${p}.${v}`), 400, /unpadded base64url|unable to parse signed JWT/);
    refused(await login(engine, 'iam', `${h}=.${p}.${s}`), 400, /unpadded base64url/);
  });

  it('refuses nbf in the future and iat or nbf that are not numbers', async () => {
    refused(await login(engine, 'iam', saJwt({ claims: { nbf: now() + 600 } })), 400, /not valid yet: its 'nbf' claim is in the future/);
    expect((await login(engine, 'iam', saJwt({ claims: { nbf: now() + 30 } }))).status).toBe(200); // within the 60 s leeway
    refused(await login(engine, 'iam', saJwt({ claims: { iat: String(now()) } })), 400, /invalid 'iat' claim/);
    refused(await login(engine, 'iam', saJwt({ claims: { nbf: String(now() - 10) } })), 400, /invalid 'nbf' claim/);
    refused(await login(engine, 'iam', saJwt({ claims: { exp: String(now() + 300) } })), 400, /expired or does not have proper 'exp'/);
  });

  it('refuses a sub that is not a service-account email or id before any provider request (.., a lone surrogate)', async () => {
    const before = { ...emu.counts };
    refused(await login(engine, 'iam', saJwt({ claims: { sub: '..' } })), 400, /'sub' claim with service account id or email/);
    refused(await login(engine, 'iam', saJwt({ claims: { sub: '../../oauth2/v1/certs' } })), 400, /'sub' claim with service account id or email/);
    refused(await login(engine, 'iam', saJwt({ claims: { sub: '\ud800' } })), 400, /'sub' claim with service account id or email/);
    refused(await login(engine, 'iam', saJwt({ claims: { sub: `a\ud800@proj-a.iam.gserviceaccount.com` } })), 400, /'sub' claim with service account id or email/);
    expect(emu.counts.x509).toBe(before.x509);
    expect(emu.counts['iam-get']).toBe(before['iam-get']);
  });

  it('fails closed with 500 and no token when the provider cannot be reached', async () => {
    const down = 'http://127.0.0.1:1';
    await mountCloudAuth(engine, emu, 'cloud-down', { custom_endpoint: { api: down, iam: down, crm: down, compute: down } });
    await api(engine, 'POST', 'auth/cloud-down/role/iam', { body: { type: 'iam', bound_service_accounts: '*' } });
    refused(await login(engine, 'iam', saJwt(), 'cloud-down'), 500, /cannot fetch the provider OAuth2 certificates/);
  });
  describe('re-check: JWT malleability and claim types (item 8, other members)', () => {
    /** Signs arbitrary header and payload text with the account's own key (a validly signed hostile JWT). */
    const signed = (header: string | Record<string, unknown>, payload: string | Record<string, unknown>) => {
      const key = emu.keys.accounts.get(SA.app.email)!.user[0];
      const h = Buffer.from(typeof header === 'string' ? header : JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: key.kid, ...header })).toString('base64url');
      const p = Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload)).toString('base64url');
      return `${h}.${p}.${sign('RSA-SHA256', Buffer.from(`${h}.${p}`), key.privateKey).toString('base64url')}`;
    };
    const claims = (extra: Record<string, unknown> = {}) => ({ iss: SA.app.email, sub: SA.app.email, aud: audience('iam'), iat: now(), exp: now() + 300, ...extra });

    it('the hand-signed baseline is accepted (so each refusal below is about its one change)', async () => {
      expect((await login(engine, 'iam', signed({}, claims()))).status).toBe(200);
      expect((await login(engine, 'iam', signed({}, claims({ exp: now() + 300.5, iat: now() - 0.25 })))).status).toBe(200);
    });

    it.each([
      ['crit (empty)', { crit: [] }, /"crit" header parameters are not supported/],
      ['crit b64', { crit: ['b64'], b64: false }, /"crit"|unable to parse signed JWT/],
      ['alg lowercase', { alg: 'rs256' }, /not allowed/],
      ['alg PS256', { alg: 'PS256' }, /not allowed/],
      ['alg with a space', { alg: 'RS256 ' }, /not allowed/],
      ['alg as a list', { alg: ['RS256'] }, /not allowed/],
      ['kid as a number', { kid: 12345 }, /no "kid"/],
      ['kid of another account', { kid: 'other' }, /unknown key id/],
    ])('a validly signed JWT whose header has %s is refused', async (_label, header, pattern) => {
      const h = { ...header } as Record<string, unknown>;
      if (h.kid === 'other') h.kid = emu.keys.accounts.get(SA.other.email)!.user[0].kid;
      refused(await login(engine, 'iam', signed(h, claims())), 400, pattern);
    });

    it.each([
      ['exp negative', { exp: -1 }, /expired/],
      ['exp as a boolean', { exp: true }, /expired or does not have proper 'exp'/],
      ['exp as null', { exp: null }, /expired or does not have proper 'exp'/],
      ['exp huge', { exp: 1e300 }, /must expire in 60 minutes|expire within/],
      ['nbf as an object', { nbf: {} }, /invalid 'nbf' claim/],
      ['nbf as an array', { nbf: [1] }, /invalid 'nbf' claim/],
      ['iat as a boolean', { iat: false }, /invalid 'iat' claim/],
      ['iat in the future (go-jose: issued in the future)', { iat: 'future' }, /'iat' claim \(issued at\) is in the future/],
      ['sub URL-encoded', { sub: 'app%40proj-a.iam.gserviceaccount.com' }, /'sub' claim with service account id or email/],
      ['sub %2e%2e', { sub: '%2e%2e' }, /'sub' claim with service account id or email/],
      ['sub with a slash', { sub: 'a/b@proj-a.iam.gserviceaccount.com' }, /'sub' claim with service account id or email/],
      ['sub very long', { sub: `${'a'.repeat(5000)}@proj-a.iam.gserviceaccount.com` }, /'sub' claim with service account id or email/],
      ['sub unicode', { sub: 'äpp@proj-a.iam.gserviceaccount.com' }, /'sub' claim with service account id or email/],
      ['sub as a number', { sub: 123 }, /expected 'sub' claim/],
      ['aud with a non-string', { aud: [audience('iam'), 5] }, /'aud' must end in/],
    ])('%s is refused', async (_label, extra, pattern) => {
      const e = { ...extra } as Record<string, unknown>;
      if (e.iat === 'future') e.iat = now() + 3600;
      refused(await login(engine, 'iam', signed({}, claims(e))), 400, pattern);
    });

    it('time claims beyond the range of a number (1e309) are refused, as Vault cannot parse them', async () => {
      const text = (field: string, value: string) =>
        JSON.stringify(claims())
          .replace(/}$/, `,"${field}":${value}}`)
          .replace(new RegExp(`"${field}":[^,]*,`), '');
      for (const [field, value] of [
        ['nbf', '-1e309'],
        ['iat', '1e309'],
        ['iat', '-1e309'],
        ['exp', '1e309'],
      ]) {
        refused(await login(engine, 'iam', signed({}, text(field, value))), 400, new RegExp(`'${field}'`));
      }
    });

    it('duplicate claims take the last value everywhere (the key lookup and the checks agree)', async () => {
      const text = JSON.stringify(claims()).replace(/^{/, `{"sub":"${SA.other.email}",`);
      expect((await login(engine, 'iam', signed({}, text))).status).toBe(200);
      const hostile = JSON.stringify(claims()).replace(/}$/, `,"sub":"${SA.other.email}"}`);
      refused(await login(engine, 'iam', signed({}, hostile)), 400, /unknown key id/);
    });

    it('extra segments, empty segments and whitespace inside are refused (the field itself is trimmed)', async () => {
      const jwt = signed({}, claims());
      for (const v of [`${jwt}.`, `${jwt}.${parts(jwt)[2]}`, `.${jwt}`, jwt.replace('.', ' .'), jwt.replace('.', '.\n'), jwt.replace('.', '..')]) {
        refused(await login(engine, 'iam', v), 400, /unable to parse signed JWT/);
      }
    });
  });
});

describe('cloud auth: identity changes at the provider between logins and renewals', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  let engine: Awaited<ReturnType<typeof startTestEngine>>;
  let emu: CloudEmulator;
  const logs: string[] = [];
  const renew = (token: string) => api(engine, 'POST', 'auth/token/renew-self', { token, body: {} });
  const appJwt = (role: string, keyIndex = 0) => emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience(role), keyIndex });
  const token = async (r: Promise<ApiResult>) => {
    const res = await r;
    expect(res.status).toBe(200);
    return res.body.auth.client_token as string;
  };

  beforeEach(async () => {
    // Each case changes the emulated cloud: a fresh emulator (same stored keys) and engine.
    emu = await startCloudFixture({ clock });
    engine = await startTestEngine({ clock, logger: createLogger('warn', (line) => logs.push(line)) });
    await mountCloudAuth(engine, emu);
    await writeRoles(engine, {
      iam: { type: 'iam', bound_service_accounts: SA.app.email, token_ttl: '1h' },
      vm: { type: 'vm', bound_zones: 'us-east1-b', token_ttl: '1h' },
      inferred: { type: 'iam', bound_service_accounts: SA.vm.email, allow_vm_inference: true, token_ttl: '1h' },
    });
  });
  afterEach(async () => {
    await engine?.close();
    await emu?.close();
  });

  it('refuses a key deleted at the provider on the next login when its document says no-store', async () => {
    emu.setKeyDocCacheControl('x509', 'no-cache, no-store, max-age=0, must-revalidate');
    await token(login(engine, 'iam', appJwt('iam', 1)));
    emu.deleteKey(emu.keys.accounts.get(SA.app.email)!.user[1].kid);
    refused(await login(engine, 'iam', appJwt('iam', 1)), 400, /unknown key id/);
    expect((await login(engine, 'iam', appJwt('iam', 0))).status).toBe(200);
  });

  it('refuses a deleted key within 10 minutes even when its document asks to be cached for an hour', async () => {
    await token(login(engine, 'iam', appJwt('iam', 1)));
    emu.deleteKey(emu.keys.accounts.get(SA.app.email)!.user[1].kid);
    await clock.advance(10 * 60_000);
    refused(await login(engine, 'iam', appJwt('iam', 1)), 400, /unknown key id/);
  });

  it('refuses a service account disabled between two logins, and the renewal of its token', async () => {
    const first = await token(login(engine, 'iam', appJwt('iam')));
    expect((await renew(first)).status).toBe(200);
    emu.updateServiceAccount(SA.app.email, { disabled: true });
    refused(await login(engine, 'iam', appJwt('iam')), 400, /is disabled/);
    const r = await renew(first);
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatch(/is disabled/);
    emu.updateServiceAccount(SA.app.email, { disabled: false, deleted: true });
    refused(await login(engine, 'iam', appJwt('iam')), 400, /not found/);
  });

  it('re-check: renewal asks the provider and the role again, for every kind of change', async () => {
    // iam: the account deleted (not just disabled) between login and renewal.
    const a = await token(login(engine, 'iam', appJwt('iam')));
    emu.updateServiceAccount(SA.app.email, { deleted: true });
    expect((await renew(a)).body.errors[0]).toMatch(/could not renew token for role iam: .*not found/);
    emu.updateServiceAccount(SA.app.email, { deleted: false });
    // iam: the role stops binding the account, or changes its policies.
    const b = await token(login(engine, 'iam', appJwt('iam')));
    await api(engine, 'POST', 'auth/cloud/role/iam', { body: { bound_service_accounts: SA.other.email } });
    expect((await renew(b)).body.errors[0]).toMatch(/not authorized for role/);
    await api(engine, 'POST', 'auth/cloud/role/iam', { body: { bound_service_accounts: SA.app.email } });
    expect((await renew(b)).status).toBe(200);
    await api(engine, 'POST', 'auth/cloud/role/iam', { body: { token_policies: 'other' } });
    expect((await renew(b)).body.errors[0]).toMatch(/policies on role "iam" have changed/);
    // vm: the zone binding changes, or the instance is suspended.
    for (const status of ['SUSPENDED', 'STOPPING'] as const) {
      const v = await token(login(engine, 'vm', emu.mintInstanceToken({ instance: 'web-1', audience: audience('vm') })));
      emu.setInstanceStatus('web-1', status);
      expect((await renew(v)).body.errors[0]).toMatch(new RegExp(`invalid status '${status}'`));
      emu.setInstanceStatus('web-1', 'RUNNING');
      expect((await renew(v)).status).toBe(200);
    }
    const v = await token(login(engine, 'vm', emu.mintInstanceToken({ instance: 'web-1', audience: audience('vm') })));
    await api(engine, 'POST', 'auth/cloud/role/vm', { body: { bound_zones: 'us-west1-a' } });
    expect((await renew(v)).body.errors[0]).toMatch(/not in bound zones/);
    // The role deleted: refused before any provider request.
    await api(engine, 'DELETE', 'auth/cloud/role/vm');
    expect((await renew(v)).body.errors[0]).toMatch(/role "vm" no longer exists/);
  });

  it('refuses the renewal of a vm token once its instance stops', async () => {
    const t = await token(login(engine, 'vm', emu.mintInstanceToken({ instance: 'web-1', audience: audience('vm') })));
    expect((await renew(t)).status).toBe(200);
    emu.setInstanceStatus('web-1', 'TERMINATED');
    const r = await renew(t);
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatch(/invalid status 'TERMINATED'/);
  });

  it('refuses the renewal of an inferred iam token once allow_vm_inference is off, or once the instance stops', async () => {
    const jwt = () => emu.mintInstanceToken({ instance: 'web-1', audience: audience('inferred') });
    const a = await token(login(engine, 'inferred', jwt()));
    const b = await token(login(engine, 'inferred', jwt()));
    expect((await renew(a)).status).toBe(200);
    emu.setInstanceStatus('web-1', 'TERMINATED');
    expect((await renew(a)).body.errors[0]).toMatch(/invalid status 'TERMINATED'/);
    emu.setInstanceStatus('web-1', 'RUNNING');
    expect((await renew(b)).status).toBe(200);
    await api(engine, 'POST', 'auth/cloud/role/inferred', { body: { allow_vm_inference: false } });
    const r = await renew(b);
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatch(/obtained through allow_vm_inference, which the role no longer allows/);
    // A service-account token of the same role still renews: only the inferred one is refused.
    const sa = await token(login(engine, 'inferred', emu.mintServiceAccountJwt({ account: SA.vm.email, audience: audience('inferred') })));
    expect((await renew(sa)).status).toBe(200);
  });

  it('falls back to the account keys when the OAuth2 certs endpoint is down (iam), and fails closed for vm', async () => {
    emu.setKeyDocCacheControl('x509', 'no-store');
    emu.failRoute('certs', 503);
    expect((await login(engine, 'iam', appJwt('iam'))).status).toBe(200);
    refused(await login(engine, 'vm', emu.mintInstanceToken({ instance: 'web-1', audience: audience('vm') })), 500, /cannot fetch the provider OAuth2 certificates/);
    emu.failRoute('x509', 503);
    refused(await login(engine, 'iam', appJwt('iam')), 500, /cannot fetch the provider OAuth2 certificates/);
  });

  it('logs each refused login with role, reason and client address, never the JWT', async () => {
    logs.length = 0;
    const jwt = emu.mintServiceAccountJwt({ account: SA.other.email, audience: audience('iam') });
    refused(await login(engine, 'iam', jwt), 400, /not authorized/);
    const line = logs.find((l) => l.includes('cloud login refused'));
    expect(line).toBeDefined();
    expect(line).toMatch(/iam/);
    expect(line).toMatch(/not authorized for role/);
    expect(line).toMatch(/127\.0\.0\.1/);
    for (const part of jwt.split('.')) expect(line).not.toContain(part);
  });

  it('re-check: a JWT sent with the wrong JSON type is neither echoed nor logged', async () => {
    const jwt = appJwt('iam');
    for (const wrapped of [[jwt], { jwt }, [[jwt]]]) {
      const before = logs.length;
      const r = await api(engine, 'POST', 'auth/cloud/login', { token: null, body: { role: 'iam', jwt: wrapped } });
      expect(r.status).toBe(400);
      expect(r.body.errors[0]).toMatch(/field "jwt"/);
      for (const part of jwt.split('.')) {
        expect(r.text).not.toContain(part);
        for (const line of logs.slice(before)) expect(line).not.toContain(part);
      }
    }
  });

  it('never echoes credentials sent as a JSON object', async () => {
    const r = await api(engine, 'POST', 'auth/cloud/config', { body: { credentials: { type: 'service_account', private_key: 'PRIVATE-KEY-MATERIAL' } } });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatch(/field "credentials": expected a string/);
    expect(r.text).not.toContain('PRIVATE-KEY-MATERIAL');
  });
});
