// The cloud emulator: description checks, certificates, minted token shapes, bearer-token
// enforcement, the OAuth2 token exchange and the admin mint endpoints the CLI uses.

import { createPrivateKey, sign } from 'node:crypto';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { parseDescription, startCloudEmulator, type CloudEmulator } from '../../../src/cloud-emulator';
import { sampleDescription } from '../../../src/cloud-emulator/sample';
import { FIXTURE_KEY_DIR, SA, cloudDescription } from '../../support/cloud-fixture';

const decode = (jwt: string, i: number) => JSON.parse(Buffer.from(jwt.split('.')[i], 'base64url').toString());

async function get(url: string, headers: Record<string, string> = {}) {
  const r = await request(url, { headers });
  return { status: r.statusCode, body: (await r.body.json()) as Record<string, unknown> };
}

describe('description', () => {
  it('accepts the sample and the test fixture', () => {
    expect(parseDescription(sampleDescription).projects).toHaveLength(2);
    expect(parseDescription(cloudDescription).instances[0].status).toBe('RUNNING');
  });
  it('lists every dangling reference and shape error', () => {
    expect(() =>
      parseDescription({
        projects: [{ id: 'p', number: '1', parent: 'folders/9' }],
        serviceAccounts: [{ email: 'a@x', uniqueId: '1', project: 'q' }],
        instances: [{ name: 'i', id: '1', project: 'p', zone: 'z-a', serviceAccount: 'b@x' }],
      }),
    ).toThrow(/project p: unknown parent folders\/9; service account a@x: unknown project q; instance i: unknown service account b@x/);
    expect(() => parseDescription({ instanceGroups: [{ name: 'g', project: 'p', zone: 'a', region: 'b' }] })).toThrow(/exactly one of zone or region/);
    expect(() => parseDescription({ extra: true })).toThrow(/invalid cloud emulator description/);
  });
});

describe('key directory', () => {
  it('keeps identities across restarts', async () => {
    const keyDir = mkdtempSync(join(tmpdir(), 'keyward-emu-keys-'));
    const description = { projects: [{ id: 'p', number: '1' }], serviceAccounts: [{ email: 'a@p.iam', uniqueId: '1', project: 'p' }] };
    const first = await startCloudEmulator({ description, keyDir });
    const kid = first.keyFile('a@p.iam').private_key_id;
    const oauth = first.keys.oauth2[0].kid;
    await first.close();
    const second = await startCloudEmulator({ description, keyDir });
    expect(second.keyFile('a@p.iam').private_key_id).toBe(kid);
    expect(second.keys.oauth2[0].kid).toBe(oauth);
    expect(statSync(join(keyDir, 'oauth2-0.json')).mode & 0o777).toBe(0o600);
    await second.close();
  });
});

describe('emulator server', () => {
  let emu: CloudEmulator;
  beforeAll(async () => {
    emu = await startCloudEmulator({ description: cloudDescription, metadataServiceAccount: SA.keyward.email, metadataInstance: 'web-2', keyDir: FIXTURE_KEY_DIR });
  });
  afterAll(() => emu?.close());

  it('mints self-signed, provider-signed and instance tokens with the expected claims', () => {
    const sa = emu.mintServiceAccountJwt({ account: SA.app.uniqueId, audience: 'http://vault/r', now: 1000, ttl: 60 });
    expect(decode(sa, 1)).toEqual({ iss: SA.app.email, sub: SA.app.email, aud: 'http://vault/r', iat: 1000, exp: 1060 });
    expect(decode(sa, 0).kid).toBe(emu.keys.accounts.get(SA.app.email)!.user[0].kid);
    const ps = emu.mintServiceAccountJwt({ account: SA.app.email, audience: 'a', providerSigned: true });
    expect(decode(ps, 0).kid).toBe(emu.keys.accounts.get(SA.app.email)!.system.kid);
    const vm = emu.mintInstanceToken({ instance: 'web-1', audience: 'http://vault/r', now: 2000 });
    expect(decode(vm, 1)).toMatchObject({
      sub: SA.vm.uniqueId,
      exp: 5600,
      google: { compute_engine: { project_id: 'proj-a', project_number: 1001, zone: 'us-east1-b', instance_id: '5001', instance_name: 'web-1' } },
    });
    expect(() => emu.mintInstanceToken({ instance: 'nope', audience: 'a' })).toThrow(/unknown instance/);
  });

  it('publishes OAuth2 certs and per-account x509 keys; deleted accounts are 404', async () => {
    const certs = await get(`${emu.url}/oauth2/v1/certs`);
    expect(Object.keys(certs.body)).toEqual(emu.keys.oauth2.map((k) => k.kid));
    const x509 = await get(`${emu.url}/service_accounts/v1/metadata/x509/${SA.app.uniqueId}?alt=json`);
    expect(Object.keys(x509.body)).toHaveLength(3);
    expect((await get(`${emu.url}/service_accounts/v1/metadata/x509/${SA.deleted.email}?alt=json`)).status).toBe(404);
  });

  it('requires a bearer token it issued on IAM, Compute and CRM calls', async () => {
    const anon = await get(`${emu.url}/v1/projects/-/serviceAccounts/${SA.app.email}`);
    expect(anon.status).toBe(401);
    expect((anon.body.error as { status: string }).status).toBe('UNAUTHENTICATED');
    const forged = await get(`${emu.url}/compute/v1/projects/proj-a/zones/us-east1-b/instances/web-1`, { authorization: 'Bearer ya29.nope' });
    expect(forged.status).toBe(401);
  });

  it('exchanges a correctly signed assertion for a token and refuses a forged one', async () => {
    const key = emu.keyFile(SA.app.email);
    const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const input = `${enc({ alg: 'RS256', kid: key.private_key_id })}.${enc({ iss: key.client_email, aud: key.token_uri, iat: now, exp: now + 600 })}`;
    const assertion = (pem: string) => `${input}.${sign('RSA-SHA256', Buffer.from(input), createPrivateKey(pem)).toString('base64url')}`;
    const post = async (a: string) => {
      const r = await request(key.token_uri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: a }).toString(),
      });
      return { status: r.statusCode, body: (await r.body.json()) as Record<string, unknown> };
    };
    const ok = await post(assertion(key.private_key));
    expect(ok.status).toBe(200);
    const sa = await get(`${emu.url}/v1/projects/-/serviceAccounts/${SA.app.email}`, { authorization: `Bearer ${ok.body.access_token}` });
    expect(sa.body).toMatchObject({ email: SA.app.email, uniqueId: SA.app.uniqueId, projectId: 'proj-a', disabled: false });
    const other = emu.keyFile(SA.other.email);
    expect((await post(assertion(other.private_key))).status).toBe(400);
  });

  it('serves key files and mints through the admin endpoints', async () => {
    const kf = await get(`${emu.url}/_emulator/key-file/${encodeURIComponent(SA.app.email)}?key=1`);
    expect(kf.body.private_key_id).toBe(emu.keys.accounts.get(SA.app.email)!.user[1].kid);
    const r = await request(`${emu.url}/_emulator/mint/instance`, { method: 'POST', body: JSON.stringify({ instance: 'web-2', audience: 'x' }) });
    const { jwt } = (await r.body.json()) as { jwt: string };
    expect(decode(jwt, 1).google.compute_engine.instance_name).toBe('web-2');
  });

  it('serves instance identity tokens from the metadata server (format=full adds compute_engine claims)', async () => {
    const path = `${emu.url}/computeMetadata/v1/instance/service-accounts/default/identity?audience=${encodeURIComponent('http://vault/web')}`;
    const full = await request(`${path}&format=full`, { headers: { 'Metadata-Flavor': 'Google' } });
    const jwt = await full.body.text();
    expect(decode(jwt, 1)).toMatchObject({ aud: 'http://vault/web', google: { compute_engine: { instance_name: 'web-2' } } });
    const standard = await (await request(path, { headers: { 'Metadata-Flavor': 'Google' } })).body.text();
    expect(decode(standard, 1).google).toBeUndefined();
    expect((await request(path)).statusCode).toBe(403);
  });
});

describe('changes at the emulated provider', () => {
  let emu: CloudEmulator;
  beforeAll(async () => {
    emu = await startCloudEmulator({ description: cloudDescription, keyDir: FIXTURE_KEY_DIR, requireAuth: false });
  });
  afterAll(() => emu?.close());

  it('deletes keys from the key documents, disables accounts, stops instances, sets caching and outages', async () => {
    const kid = emu.keys.accounts.get(SA.app.email)!.user[1].kid;
    const x509 = `${emu.url}/service_accounts/v1/metadata/x509/${encodeURIComponent(SA.app.email)}?alt=json`;
    expect(Object.keys((await get(x509)).body)).toContain(kid);
    emu.deleteKey(kid);
    expect(Object.keys((await get(x509)).body)).not.toContain(kid);
    expect(emu.mintServiceAccountJwt({ account: SA.app.email, audience: 'a', keyIndex: 1 })).toMatch(/\./);

    const sa = `${emu.url}/v1/projects/-/serviceAccounts/${encodeURIComponent(SA.app.email)}`;
    emu.updateServiceAccount(SA.app.email, { disabled: true });
    expect((await get(sa)).body.disabled).toBe(true);

    const inst = `${emu.url}/compute/v1/projects/proj-a/zones/us-east1-b/instances/web-1`;
    emu.setInstanceStatus('web-1', 'TERMINATED');
    expect((await get(inst)).body.status).toBe('TERMINATED');

    emu.setKeyDocCacheControl('certs', 'no-store');
    expect((await request(`${emu.url}/oauth2/v1/certs`)).headers['cache-control']).toBe('no-store');
    emu.failRoute('certs', 503);
    expect((await get(`${emu.url}/oauth2/v1/certs`)).status).toBe(503);
    emu.failRoute('certs', null);
    expect((await get(`${emu.url}/oauth2/v1/certs`)).status).toBe(200);
  });
});
