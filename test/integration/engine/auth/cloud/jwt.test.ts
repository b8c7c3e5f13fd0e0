// verifyLoginJwt's fixed order and trust rules, against the emulator with the real provider
// client: no key is fetched for a refused algorithm, compute_engine claims are trusted only when
// the provider's OAuth2 keys signed the token, and time checks use the given clock.

import { ManualClock } from '../../../../../src/engine/clock';
import type { CloudEmulator } from '../../../../../src/cloud-emulator';
import { IdpClient } from '../../../../../src/idp-client/client';
import { canonicalSegment, verifyLoginJwt } from '../../../../../src/engine/auth/cloud/jwt';
import { ApiError } from '../../../../../src/schema/errors';
import { SA, audience, emulatorEndpoints, startCloudFixture } from '../../../../support/cloud-fixture';

const b64u = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('verifyLoginJwt', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  let emu: CloudEmulator;
  let client: IdpClient;
  const verify = (jwt: string, type: 'iam' | 'vm' = 'iam', role = 'r') => verifyLoginJwt(jwt, type, role, client, clock.now());
  const failure = async (p: Promise<unknown>) => {
    const e = await p.then(
      () => undefined,
      (x: unknown) => x,
    );
    if (!ApiError.isApiError(e)) throw new Error(`expected an ApiError, got ${String(e)}`);
    return { status: e.status, message: e.errors[0] };
  };

  beforeAll(async () => {
    emu = await startCloudFixture({ clock });
    client = new IdpClient({ endpoints: emulatorEndpoints(emu), credentials: emu.keyFile(SA.keyward.email), clock, env: {} });
  });
  afterAll(() => emu?.close());

  it('refuses a disallowed algorithm before fetching any key', async () => {
    const before = { ...emu.counts };
    const jwt = `${b64u({ alg: 'ES256', kid: 'x' })}.${b64u({ sub: 'a', aud: audience('r'), exp: 1 })}.c2ln`;
    expect(await failure(verify(jwt))).toEqual({ status: 400, message: expect.stringMatching(/algorithm "ES256" is not allowed/) });
    expect(emu.counts).toEqual(before);
  });

  it('returns the subject, exp and key source of a good self-signed JWT', async () => {
    const v = await verify(emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('R') }), 'iam', 'r');
    expect(v).toMatchObject({ sub: SA.app.email, keySource: 'service_account', computeEngine: undefined });
  });

  it('ignores compute_engine claims in a self-signed JWT (they are only trusted from provider keys)', async () => {
    const forged = emu.mintServiceAccountJwt({
      account: SA.app.email,
      audience: audience('r'),
      claims: { google: { compute_engine: { instance_id: '5001', project_id: 'proj-a', zone: 'us-east1-b', instance_name: 'web-1' } } },
    });
    expect((await verify(forged)).computeEngine).toBeUndefined();
    const real = await verify(emu.mintInstanceToken({ instance: 'web-1', audience: audience('r') }), 'vm');
    expect(real).toMatchObject({ keySource: 'provider', computeEngine: { instance_id: '5001', zone: 'us-east1-b', project_number: '1001' } });
  });

  it('applies the 60 s leeway to exp and the global 60-minute cap', async () => {
    const jwt = emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('r'), ttl: 30 });
    await clock.advance(80_000);
    expect((await verify(jwt)).sub).toBe(SA.app.email);
    await clock.advance(20_000);
    expect((await failure(verify(jwt))).message).toMatch(/expired/);
    const long = emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('r'), ttl: 7200 });
    expect((await failure(verify(long))).message).toMatch(/JWT must expire in 60 minutes, expires in 7200 seconds/);
  });

  it('requires every aud value to end in vault/<role>', async () => {
    const mixed = emu.mintServiceAccountJwt({ account: SA.app.email, audience: [audience('r'), 'https://elsewhere'] });
    expect((await failure(verify(mixed))).message).toMatch(/must end in "vault\/r"/);
  });
});

describe('canonicalSegment', () => {
  // The definition: base64url without padding that decodes and re-encodes to itself.
  const roundTrip = (seg: string) => /^[A-Za-z0-9_-]*$/.test(seg) && seg.length % 4 !== 1 && Buffer.from(seg, 'base64url').toString('base64url') === seg;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

  it('agrees with the decode/re-encode definition for every last character at every length class', () => {
    for (const prefix of ['', 'Q', 'QU', 'QUJ', 'QUJD', 'eyJhbGciOiJSUzI1NiJ9']) {
      for (const last of [...alphabet, '+', '/', '=', '.', ' ', 'é']) {
        const seg = prefix + last;
        expect([seg, canonicalSegment(seg)]).toEqual([seg, roundTrip(seg)]);
      }
    }
  });

  it('refuses padding, the +/ alphabet and a stray-bit last character', () => {
    expect(canonicalSegment('QQ')).toBe(true);
    expect(canonicalSegment('QR')).toBe(false);
    expect(canonicalSegment('QQ==')).toBe(false);
    expect(canonicalSegment('a+b/')).toBe(false);
    expect(canonicalSegment('Q')).toBe(false);
    expect(canonicalSegment('')).toBe(true);
  });
});
