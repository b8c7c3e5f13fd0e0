// Interoperability: a JWT produced by google-auth-library (JWTAccess signing with a generated
// service-account key file) logs in, so our verifier accepts what real client libraries send.

import { JWTAccess } from 'google-auth-library';
import type { CloudEmulator } from '../../../src/cloud-emulator';
import { api, startTestEngine } from '../../support/engine';
import { SA, audience, login, mountCloudAuth, startCloudFixture } from '../../support/cloud-fixture';

describe('JWT from google-auth-library', () => {
  let engine: Awaited<ReturnType<typeof startTestEngine>>;
  let emu: CloudEmulator;

  beforeAll(async () => {
    // The library uses the real clock, so the engine and emulator do too.
    emu = await startCloudFixture();
    engine = await startTestEngine();
    await mountCloudAuth(engine, emu);
  });
  afterAll(async () => {
    await engine?.close();
    await emu?.close();
  });

  it('logs in with a self-signed JWT from JWTAccess and a key file', async () => {
    // JWTAccess issues one-hour JWTs, so the role allows the maximum max_jwt_exp.
    const w = await api(engine, 'POST', 'auth/cloud/role/lib', { body: { type: 'iam', bound_service_accounts: SA.app.email, max_jwt_exp: '60m' } });
    expect(w.status).toBe(200);
    const access = new JWTAccess();
    access.fromJSON(emu.keyFile(SA.app.email, 1));
    const headers = access.getRequestHeaders(audience('lib'));
    const jwt = headers.get('authorization')!.replace(/^Bearer /, '');
    const r = await login(engine, 'lib', jwt);
    expect(r.status).toBe(200);
    expect(r.body.auth.metadata.service_account_email).toBe(SA.app.email);
  });

  it('refuses the same library JWT under the default 15-minute max_jwt_exp with a clear hint', async () => {
    await api(engine, 'POST', 'auth/cloud/role/strict', { body: { type: 'iam', bound_service_accounts: SA.app.email } });
    const access = new JWTAccess();
    access.fromJSON(emu.keyFile(SA.app.email));
    const jwt = access
      .getRequestHeaders(audience('strict'))
      .get('authorization')!
      .replace(/^Bearer /, '');
    const r = await login(engine, 'strict', jwt);
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatch(/expire within 900 seconds.*shorter 'exp'/);
  });
});
