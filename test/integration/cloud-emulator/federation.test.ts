// The emulator's Security Token Service and IAM Credentials against a small OIDC issuer served over
// HTTP by the test: each check Google makes (issuer, audience, expiry, signature, attribute
// condition, RFC 8693 fields) refuses with an OAuth error naming it; bindings decide impersonation;
// the tokens it hands out work on IAM; every exchange and impersonation is recorded.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { parseDescription, startCloudEmulator, type CloudEmulator } from '../../../src/cloud-emulator';
import { parseAttributeCondition } from '../../../src/cloud-emulator/attribute-condition';
import { FIXTURE_KEY_DIR, SA, cloudDescription } from '../../support/cloud-fixture';

type Key = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

const NOW = Date.UTC(2026, 0, 1);
const RESOURCE = '//iam.googleapis.com/projects/1002/locations/global/workloadIdentityPools/test-pool/providers/test-prov';
const SUB = 'plugin-identity:root:auth:auth_cloud_1234';

describe('attribute conditions', () => {
  it('evaluates the supported subset', () => {
    const c = parseAttributeCondition('assertion.sub.startsWith("plugin-identity:root:") && (assertion.sub != "plugin-identity:root:auth:x" || assertion.sub.endsWith(":x"))');
    expect(c('plugin-identity:root:auth:y')).toBe(true);
    expect(c('plugin-identity:team:auth:y')).toBe(false);
    expect(parseAttributeCondition('assertion.sub == "a" || assertion.sub == "b"')('b')).toBe(true);
    expect(parseAttributeCondition('!(assertion.sub == "a") && !assertion.sub.endsWith("z")')('b')).toBe(true);
    expect(parseAttributeCondition('!(assertion.sub == "a")')('a')).toBe(false);
    expect(parseAttributeCondition("google.subject.startsWith('plugin-identity:')")('plugin-identity:x')).toBe(true);
    expect(parseAttributeCondition(`assertion.sub == 'it\\'s "q"'`)(`it's "q"`)).toBe(true);
  });
  it("accepts providers in Google's REST shape (oidc.issuerUri, oidc.allowedAudiences)", () => {
    const d = parseDescription({
      projects: [{ id: 'p', number: '1' }],
      workloadIdentityPools: [{ project: 'p', id: 'pool-1', providers: [{ id: 'prov-1', oidc: { issuerUri: 'http://issuer.test', allowedAudiences: ['a'] } }] }],
    });
    expect(d.workloadIdentityPools[0].providers[0]).toMatchObject({ issuerUri: 'http://issuer.test', allowedAudiences: ['a'] });
    const g = parseDescription({
      projects: [{ id: 'p', number: '7' }],
      workloadIdentityPools: [{ project: '7', workloadIdentityPoolId: 'pool-2', providers: [{ workloadIdentityPoolProviderId: 'prov-2', oidc: { issuerUri: 'http://i.test' } }] }],
    });
    expect(g.workloadIdentityPools[0]).toMatchObject({ project: 'p', id: 'pool-2', providers: [{ id: 'prov-2', issuerUri: 'http://i.test' }] });
  });
  it('refuses what it cannot understand, in the description', () => {
    expect(() => parseAttributeCondition('assertion.email == "x"')).toThrow(/unsupported syntax/);
    expect(() =>
      parseDescription({
        projects: [{ id: 'p', number: '1' }],
        workloadIdentityPools: [{ project: 'p', id: 'pool-1', providers: [{ id: 'prov-1', issuerUri: 'http://x', attributeCondition: 'assertion.sub ==' }] }],
      }),
    ).toThrow(/provider pool-1\/prov-1: attribute condition/);
  });
});

describe('STS and IAM Credentials', () => {
  let issuer: Server;
  let issuerUrl = '';
  let key: Key;
  let kid = '';
  let jwk: JWK;
  let emu: CloudEmulator;

  const sign = (o: { iss?: string; aud?: string; sub?: string; exp?: number; signer?: Key; signerKid?: string } = {}) =>
    new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: o.signerKid ?? kid })
      .setIssuer(o.iss ?? issuerUrl)
      .setAudience(o.aud ?? `https:${RESOURCE}`)
      .setSubject(o.sub ?? SUB)
      .setIssuedAt(Math.floor(NOW / 1000) - 10)
      .setExpirationTime(o.exp ?? Math.floor(NOW / 1000) + 600)
      .sign(o.signer ?? key);

  const exchange = async (fields: Record<string, string>) => {
    const r = await fetch(`${emu.url}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
        requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        audience: RESOURCE,
        scope: 'https://www.googleapis.com/auth/cloud-platform',
        ...fields,
      }),
    });
    return { status: r.status, body: (await r.json()) as Record<string, string> };
  };
  const impersonate = async (token: string, account: string) => {
    const r = await fetch(`${emu.url}/v1/projects/-/serviceAccounts/${account}:generateAccessToken`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ scope: ['https://www.googleapis.com/auth/cloud-platform'], lifetime: '600s' }),
    });
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    key = pair.privateKey;
    kid = 'k1';
    jwk = { ...(await exportJWK(pair.publicKey)), kid, alg: 'RS256' };
    issuer = createServer((req, res) => {
      const body = req.url === '/.well-known/openid-configuration' ? { issuer: issuerUrl, jwks_uri: `${issuerUrl}/jwks` } : req.url === '/jwks' ? { keys: [jwk] } : undefined;
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? {}));
    });
    await new Promise<void>((r) => issuer.listen(0, '127.0.0.1', () => r()));
    issuerUrl = `http://127.0.0.1:${(issuer.address() as AddressInfo).port}`;
    emu = await startCloudEmulator({
      description: {
        ...cloudDescription,
        projects: cloudDescription.projects.map((p) =>
          p.id === 'proj-a'
            ? {
                ...p,
                bindings: [
                  { role: 'roles/iam.workloadIdentityUser', members: ['principalSet://iam.googleapis.com/projects/1002/locations/global/workloadIdentityPools/test-pool/*'] },
                ],
              }
            : p,
        ),
        serviceAccounts: cloudDescription.serviceAccounts.map((sa) =>
          sa.email === SA.app.email
            ? {
                ...sa,
                bindings: [
                  {
                    role: 'roles/iam.workloadIdentityUser',
                    members: [`principal://iam.googleapis.com/projects/1002/locations/global/workloadIdentityPools/test-pool/subject/${SUB}`],
                  },
                ],
              }
            : sa,
        ),
        workloadIdentityPools: [
          { project: 'proj-b', id: 'test-pool', providers: [{ id: 'test-prov', issuerUri: issuerUrl, attributeCondition: 'assertion.sub.startsWith("plugin-identity:root:")' }] },
        ],
      },
      clock: { now: () => NOW },
      keyDir: FIXTURE_KEY_DIR,
    });
  });
  afterAll(async () => {
    await emu?.close();
    await new Promise((r) => issuer?.close(r));
  });

  it('exchanges a valid subject token, impersonates a bound account, and the token works on IAM', async () => {
    const ex = await exchange({ subject_token: await sign() });
    expect(ex.status).toBe(200);
    expect(ex.body).toMatchObject({ issued_token_type: 'urn:ietf:params:oauth:token-type:access_token', token_type: 'Bearer', access_token: expect.any(String) });
    // A federated token is not an IAM credential by itself.
    const direct = await fetch(`${emu.url}/v1/projects/-/serviceAccounts/${SA.app.email}`, { headers: { authorization: `Bearer ${ex.body.access_token}` } });
    expect(direct.status).toBe(401);
    const imp = await impersonate(ex.body.access_token, SA.app.email);
    expect(imp.status).toBe(200);
    expect(imp.body.expireTime).toBe(new Date(NOW + 600_000).toISOString());
    const get = await fetch(`${emu.url}/v1/projects/-/serviceAccounts/${SA.app.email}`, { headers: { authorization: `Bearer ${imp.body.accessToken}` } });
    expect(get.status).toBe(200);
    expect(emu.records.exchanges.at(-1)).toMatchObject({ ok: true, subject: SUB, audience: RESOURCE });
    expect(emu.records.impersonations.at(-1)).toMatchObject({ ok: true, serviceAccount: SA.app.email });
    expect(JSON.stringify(emu.records)).not.toContain(ex.body.access_token);
  });

  it.each([
    ['wrong issuer', { iss: 'https://elsewhere.example' }, /issuer in the subject token does not match/],
    [
      'wrong audience',
      { aud: 'https://iam.googleapis.com/projects/1002/locations/global/workloadIdentityPools/test-pool/providers/other' },
      /audience in the subject token does not match/,
    ],
    ['expired', { exp: Math.floor(NOW / 1000) - 1 }, /has expired/],
    ['subject outside the attribute condition', { sub: 'plugin-identity:team:auth:x' }, /rejected by the attribute condition/],
  ])('refuses a subject token: %s', async (_name, o, message) => {
    const r = await exchange({ subject_token: await sign(o) });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/invalid_grant|unauthorized_client/);
    expect(r.body.error_description).toMatch(message);
    expect(emu.records.exchanges.at(-1)).toMatchObject({ ok: false, error: expect.stringMatching(message) });
  });

  it('refuses a foreign signature, also under the issuer key id', async () => {
    const other = (await generateKeyPair('RS256')).privateKey;
    for (const signerKid of [kid, 'unknown-kid']) {
      const r = await exchange({ subject_token: await sign({ signer: other, signerKid }) });
      expect(r.status).toBe(400);
      expect(r.body.error_description).toMatch(/signature does not verify/);
    }
  });

  it('refuses malformed exchange requests, naming the field', async () => {
    const token = await sign();
    expect((await exchange({ subject_token: token, grant_type: 'client_credentials' })).body.error).toBe('unsupported_grant_type');
    expect((await exchange({ subject_token: token, subject_token_type: 'urn:x' })).body.error_description).toMatch(/subject_token_type/);
    expect((await exchange({ subject_token: token, requested_token_type: 'urn:x' })).body.error_description).toMatch(/requested_token_type/);
    expect((await exchange({ subject_token: '' })).body.error_description).toMatch(/subject_token is required/);
    const unknown = await exchange({ subject_token: token, audience: RESOURCE.replace('test-prov', 'nope-prov') });
    expect(unknown.body.error).toBe('invalid_target');
  });

  it('honours a project-level workloadIdentityUser grant', async () => {
    const ex = await exchange({ subject_token: await sign({ sub: 'plugin-identity:root:auth:other' }) });
    expect((await impersonate(ex.body.access_token, SA.vm.email)).status).toBe(200);
    expect((await impersonate(ex.body.access_token, SA.other.email)).status).toBe(403);
  });

  it('refuses impersonation without a binding or without a federated token', async () => {
    const ex = await exchange({ subject_token: await sign() });
    const denied = await impersonate(ex.body.access_token, SA.other.email);
    expect(denied.status).toBe(403);
    expect(JSON.stringify(denied.body)).toMatch(/workloadIdentityUser/);
    expect((await impersonate('ya29.not-a-token', SA.app.email)).status).toBe(401);
    expect(emu.records.impersonations.at(-1)).toMatchObject({ ok: false, principal: '' });
  });
});
