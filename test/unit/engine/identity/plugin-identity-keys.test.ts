// Plugin identity keys bounded as Vault bounds them (issue 32): the key rotates once it has signed
// for its period, a rotated-out key verifies for its window and then disappears, no token outlives
// that window, concurrent rotations lose no key, and reading the JWKS never makes a key.

import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { PluginIdentity, ROTATION_PERIOD_SECONDS, DEFAULT_VERIFICATION_TTL_SECONDS } from '../../../../src/engine/identity/plugin-identity';
import { ManualClock } from '../../../../src/engine/clock';
import { JsonStore } from '../../../../src/engine/storage/json-store';
import { MemoryStorage } from '../../../../src/engine/storage/memory';
import type { MountInfo } from '../../../../src/engine/route-family';

const ns = { id: 'abc123', path: 'team/' };
const mount = { namespace: ns, accessor: 'auth_cloud_1', path: 'wif/', type: 'cloud' } as unknown as MountInfo;
const HOUR = 3600_000;

function setup() {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const store = new JsonStore(new MemoryStorage());
  return { clock, store, identity: new PluginIdentity(store, clock, () => 'https://engine.example') };
}

async function verifies(identity: PluginIdentity, token: string, at: number): Promise<boolean> {
  try {
    await jwtVerify(token, createLocalJWKSet(await identity.jwks(ns)), { currentDate: new Date(at) });
    return true;
  } catch {
    return false;
  }
}

it('rotates the key once it has signed for its period; the old key verifies its tokens until they expire, then leaves the JWKS', async () => {
  const { clock, identity } = setup();
  const kid1 = decodeProtectedHeader(await identity.sign(mount, 'aud', 60)).kid;
  await clock.advance(23 * HOUR);
  // Signed an hour before the rotation, with the longest lifetime allowed.
  const late = await identity.sign(mount, 'aud', DEFAULT_VERIFICATION_TTL_SECONDS);
  expect(decodeProtectedHeader(late).kid).toBe(kid1);
  await clock.advance(ROTATION_PERIOD_SECONDS * 1000 - 23 * HOUR);
  const kid2 = decodeProtectedHeader(await identity.sign(mount, 'aud', 60)).kid;
  expect(kid2).not.toBe(kid1);
  expect((await identity.jwks(ns)).keys.map((k) => k.kid)).toEqual([kid2, kid1]);
  // A minute before it expires, the late token still verifies against the published keys.
  await clock.advance(23 * HOUR - 60_000);
  expect(await verifies(identity, late, clock.now())).toBe(true);
  // The window ends a verification_ttl after the rotation: the old key is gone.
  await clock.advance(HOUR + 60_000);
  expect((await identity.jwks(ns)).keys.map((k) => k.kid)).toEqual([kid2]);
});

it('no token outlives the verification window: a longer lifetime (a config stored before the rule) is capped', async () => {
  const { identity } = setup();
  for (const asked of [DEFAULT_VERIFICATION_TTL_SECONDS + 1, 10 * 365 * 24 * 3600]) {
    const { exp, iat } = decodeJwt(await identity.sign(mount, 'aud', asked));
    expect(exp! - iat!).toBe(DEFAULT_VERIFICATION_TTL_SECONDS);
  }
});

it('concurrent rotations keep every key that signed in the JWKS', async () => {
  const { identity } = setup();
  const signed = await identity.sign(mount, 'aud', 3600);
  const rotated = await Promise.all(Array.from({ length: 5 }, () => identity.rotate(ns)));
  const published = (await identity.jwks(ns)).keys.map((k) => k.kid);
  expect(published).toContain(decodeProtectedHeader(signed).kid);
  for (const r of rotated) expect(published).toContain(r.kid);
  expect(published).toHaveLength(6);
});

it('reading the JWKS of a namespace that never signed makes no key; forgetting deletes the stored one', async () => {
  const { store, identity } = setup();
  expect(await identity.jwks(ns)).toEqual({ keys: [] });
  expect(await store.list('sys/plugin-identity/')).toEqual([]);
  await identity.sign(mount, 'aud', 60);
  expect(await store.list('sys/plugin-identity/')).toEqual([ns.id]);
  await identity.forget(ns);
  expect(await store.list('sys/plugin-identity/')).toEqual([]);
  expect(await identity.jwks(ns)).toEqual({ keys: [] });
});
