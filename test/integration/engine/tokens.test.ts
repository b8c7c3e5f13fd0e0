// Token lifetimes and limits on an injected clock, over the real socket.

import { connect } from 'node:net';
import { ManualClock } from '../../../src/engine/clock';
import { startTestEngine, api, ROOT_TOKEN as ROOT } from '../../support/engine';
import { staticAuthMethod } from '../../support/static-auth';
import { authMethodFactories } from '../../../src/engine/auth/methods';
import type { Engine } from '../../../src/engine/engine';

const H = 3600;
let engine: Engine;
let clock: ManualClock;

beforeAll(async () => {
  clock = new ManualClock(Date.UTC(2026, 0, 1));
  engine = await startTestEngine({ clock, authMethods: [...authMethodFactories, staticAuthMethod] });
  expect((await api(engine, 'POST', 'sys/auth/static', { body: { type: 'static' } })).status).toBe(204);
});
afterAll(() => engine.close());

async function create(body: Record<string, unknown>) {
  const r = await api(engine, 'POST', 'auth/token/create', { body });
  expect(r.status).toBe(200);
  return r.body.auth as { client_token: string; accessor: string; lease_duration: number };
}
const lookup = (token: string) => api(engine, 'GET', 'auth/token/lookup-self', { token });
const renew = (token: string, increment?: string) => api(engine, 'POST', 'auth/token/renew-self', { token, body: increment ? { increment } : {} });

async function login(role: string, settings: Record<string, unknown>) {
  await api(engine, 'POST', `auth/static/role/${role}`, { body: settings });
  const r = await api(engine, 'POST', 'auth/static/login', { token: null, body: { role } });
  expect(r.status).toBe(200);
  return r.body.auth.client_token as string;
}

it('a token expires at the end of its TTL', async () => {
  const t = await create({ ttl: '1h', policies: ['default'] });
  expect(t.lease_duration).toBe(H);
  await clock.advance(59 * 60 * 1000);
  expect((await lookup(t.client_token)).status).toBe(200);
  await clock.advance(60 * 1000);
  expect((await lookup(t.client_token)).status).toBe(403);
});

it('max TTL caps renewals (measured from creation)', async () => {
  const token = await login('capped', { token_ttl: '1h', token_max_ttl: '3h' });
  for (const _ of [1, 2]) {
    await clock.advance(50 * 60 * 1000);
    expect((await renew(token)).body.auth.lease_duration).toBe(H);
  }
  await clock.advance(50 * 60 * 1000); // 150 minutes in: only 30 left before the 3h max
  const r = await renew(token);
  expect(r.status).toBe(200);
  expect(r.body.auth.lease_duration).toBe(0.5 * H);
  expect(r.body.warnings[0]).toMatch(/capped/);
  await clock.advance(0.5 * H * 1000);
  expect((await lookup(token)).status).toBe(403);
});

it('renewal uses the role current TTL and is refused once the role is gone', async () => {
  const token = await login('changing', { token_ttl: '1h' });
  await api(engine, 'POST', 'auth/static/role/changing', { body: { token_ttl: '2h' } });
  expect((await renew(token)).body.auth.lease_duration).toBe(2 * H);
  await api(engine, 'DELETE', 'auth/static/role/changing');
  const r = await renew(token);
  expect(r.status).toBe(400);
  expect(r.body.errors[0]).toMatch(/renewal refused: role "changing" no longer exists/);
});

it('explicit max TTL is a hard cap, even for renewals', async () => {
  const t = await create({ ttl: '1h', explicit_max_ttl: '90m' });
  await clock.advance(50 * 60 * 1000);
  const r = await renew(t.client_token, '1h');
  expect(r.body.auth.lease_duration).toBe(40 * 60);
  await clock.advance(40 * 60 * 1000);
  expect((await lookup(t.client_token)).status).toBe(403);
});

it('periodic tokens renew to their period indefinitely, past the system max TTL', async () => {
  const t = await create({ period: '1h' });
  for (let i = 0; i < 20; i++) {
    await clock.advance(50 * 60 * 1000);
    const r = await renew(t.client_token);
    expect(r.body.auth.lease_duration).toBe(H);
  }
  await clock.advance(800 * H * 1000 - 20 * 50 * 60 * 1000); // no renewal: it lapses
  expect((await lookup(t.client_token)).status).toBe(403);
});

it('num_uses exhausts the token', async () => {
  const t = await create({ num_uses: 2 });
  expect((await lookup(t.client_token)).status).toBe(200);
  const second = await lookup(t.client_token);
  expect(second.status).toBe(200);
  expect(second.body.data.num_uses).toBe(1);
  expect((await lookup(t.client_token)).status).toBe(403);
});

it('a bound CIDR rejects another client address, on use and at login', async () => {
  const elsewhere = await create({ bound_cidrs: ['10.0.0.0/8'] });
  expect((await lookup(elsewhere.client_token)).status).toBe(403);
  const local = await create({ bound_cidrs: '127.0.0.1' });
  const ok = await lookup(local.client_token);
  expect(ok.status).toBe(200);
  expect(ok.body.data.bound_cidrs).toEqual(['127.0.0.1/32']);
  const fromLogin = await login('cidr', { token_bound_cidrs: ['192.0.2.0/24'] });
  expect((await lookup(fromLogin)).status).toBe(403);
});

it('sys/health and sys/seal-status never look at the token sent along (Vault serves them before authentication)', async () => {
  // A token the engine would refuse from this address: any lookup of it would answer 403.
  const elsewhere = await create({ bound_cidrs: ['10.0.0.0/8'] });
  expect((await lookup(elsewhere.client_token)).status).toBe(403);
  for (const path of ['sys/health', 'sys/seal-status']) {
    expect((await api(engine, 'GET', path, { token: elsewhere.client_token })).status).toBe(200);
    expect((await api(engine, 'GET', path, { token: 'hvs.not-a-token' })).status).toBe(200);
  }
  // Other unauthenticated routes still look a sent token up (a login may carry one).
  const fromLogin = await api(engine, 'POST', 'auth/static/login', { token: elsewhere.client_token, body: { role: 'cidr' } });
  expect(fromLogin.status).toBe(403);
});

it('batch tokens are not stored and cannot be renewed past their TTL', async () => {
  const before = (await engine.core.handle({ method: 'GET', url: '/v1/sys/health', headers: {}, remoteAddress: '127.0.0.1' })).status;
  expect(before).toBe(200);
  const t = await create({ type: 'batch', ttl: '30m', policies: ['default'] });
  expect(t.client_token.startsWith('hvb.')).toBe(true);
  expect(t.accessor).toBe('');
  const l = await lookup(t.client_token);
  expect(l.body.data.type).toBe('batch');
  const r = await renew(t.client_token);
  expect(r.status).toBe(400);
  expect(r.body.errors[0]).toMatch(/batch tokens cannot be renewed/);
  await clock.advance(30 * 60 * 1000);
  expect((await lookup(t.client_token)).status).toBe(403);
});

it('batch tokens leave no trace in storage', async () => {
  const { JsonStore } = await import('../../../src/engine/storage/json-store');
  const { SqliteStorage } = await import('../../../src/engine/storage/sqlite');
  const count = async () => {
    const s = new SqliteStorage(`${engine.dataDir}/keyward.db`);
    const n = (await new JsonStore(s).list('sys/token/')).length;
    await s.close();
    return n;
  };
  const n0 = await count();
  await create({ type: 'batch', ttl: '30m' });
  expect(await count()).toBe(n0);
  await create({ ttl: '30m' });
  expect(await count()).toBeGreaterThan(n0);
});

it('revoke-self, revoke and parent revocation', async () => {
  const a = await create({ ttl: '1h' });
  expect((await api(engine, 'POST', 'auth/token/revoke-self', { token: a.client_token })).status).toBe(204);
  expect((await lookup(a.client_token)).status).toBe(403);

  const parent = await create({ ttl: '1h', policies: ['root'] });
  const childRes = await api(engine, 'POST', 'auth/token/create', { token: parent.client_token, body: { ttl: '1h' } });
  const child = childRes.body.auth.client_token;
  const orphanRes = await api(engine, 'POST', 'auth/token/create', { token: parent.client_token, body: { ttl: '1h', no_parent: true } });
  const orphan = orphanRes.body.auth.client_token;
  expect((await api(engine, 'POST', 'auth/token/revoke', { body: { token: parent.client_token } })).status).toBe(204);
  expect((await lookup(parent.client_token)).status).toBe(403);
  expect((await lookup(child)).status).toBe(403);
  expect((await lookup(orphan)).status).toBe(200);
});

it('lookup by token and by accessor', async () => {
  const t = await create({ ttl: '1h', meta: { team: 'infra' }, display_name: 'ci' });
  const r = await api(engine, 'POST', 'auth/token/lookup', { body: { token: t.client_token } });
  expect(r.body.data).toMatchObject({ accessor: t.accessor, display_name: 'token-ci', meta: { team: 'infra' }, ttl: H, type: 'service' });
  const a = await api(engine, 'POST', 'auth/token/lookup-accessor', { body: { accessor: t.accessor } });
  expect(a.body.data.id).toBe('');
  expect(a.body.data.accessor).toBe(t.accessor);
});

it('renews by accessor without revealing the token (auth/token/renew-accessor)', async () => {
  const t = await create({ ttl: '1h', policies: ['default'] });
  await clock.advance(30 * 60 * 1000);
  const r = await api(engine, 'POST', 'auth/token/renew-accessor', { body: { accessor: t.accessor, increment: '2h' } });
  expect(r.status).toBe(200);
  expect(r.body.auth).toMatchObject({ client_token: '', accessor: t.accessor, lease_duration: 2 * H, renewable: true });
  expect(r.body.warnings).toBeNull();
  expect((await lookup(t.client_token)).body.data.ttl).toBe(2 * H);
  expect((await api(engine, 'POST', 'auth/token/renew-accessor', { body: { accessor: 'x'.repeat(32) } })).status).toBe(400);
  expect((await api(engine, 'POST', 'auth/token/renew-accessor', { body: {} })).body.errors[0]).toMatch(/"accessor" field is required/);
});

it('lists the accessors of live service tokens with sudo (LIST auth/token/accessors)', async () => {
  const live = await create({ ttl: '1h', policies: ['default'] });
  const revoked = await create({ ttl: '1h', policies: ['default'] });
  await api(engine, 'POST', 'auth/token/revoke-accessor', { body: { accessor: revoked.accessor } });
  const r = await api(engine, 'LIST', 'auth/token/accessors');
  expect(r.status).toBe(200);
  expect(r.body.data.keys).toContain(live.accessor);
  expect(r.body.data.keys).not.toContain(revoked.accessor);
  expect((await api(engine, 'GET', 'auth/token/accessors/?list=true')).body.data.keys).toEqual(r.body.data.keys);
  // list capability without sudo is not enough.
  await api(engine, 'PUT', 'sys/policies/acl/accessor-lister', { body: { policy: 'path "auth/token/accessors" { capabilities = ["list"] }' } });
  const lister = await create({ ttl: '1h', policies: ['accessor-lister'] });
  expect((await api(engine, 'LIST', 'auth/token/accessors', { token: lister.client_token })).status).toBe(403);
});

it('tokens issued by an auth mount stop working when the mount is disabled', async () => {
  await api(engine, 'POST', 'sys/auth/short-lived', { body: { type: 'static' } });
  await api(engine, 'POST', 'auth/short-lived/role/r', { body: { token_ttl: '1h' } });
  const t = (await api(engine, 'POST', 'auth/short-lived/login', { token: null, body: { role: 'r' } })).body.auth.client_token;
  expect((await lookup(t)).status).toBe(200);
  await api(engine, 'DELETE', 'sys/auth/short-lived');
  expect((await lookup(t)).status).toBe(403);
});

/** Sends a request head and the first body byte over a raw socket; finish() sends the rest and parses the answer. */
function heldRequest(path: string, token: string, body: string) {
  const { port } = new URL(engine.url);
  const socket = connect(Number(port), '127.0.0.1');
  let answer = '';
  socket.setEncoding('utf8');
  socket.on('data', (c: string) => (answer += c));
  const closed = new Promise<void>((resolve) => socket.on('end', resolve));
  socket.write(
    `POST /v1/${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Vault-Token: ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body[0]}`,
  );
  return {
    finish: async () => {
      socket.write(body.slice(1));
      await closed;
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(answer)?.[1]);
      const json = answer.slice(answer.indexOf('\r\n\r\n') + 4);
      return { status, body: json ? JSON.parse(json) : undefined };
    },
  };
}

describe('no request outlives a revocation', () => {
  const slowRequest = (path: string, token: string, body: string) => {
    const h = heldRequest(path, token, body);
    return { finish: async () => (await h.finish()).status };
  };

  it('a renew-self whose body arrives after a revocation fails and the token stays revoked', async () => {
    const t = await create({ ttl: '1h' });
    const held = slowRequest('auth/token/renew-self', t.client_token, '{}');
    // A round trip on another connection: the held request's head has been dispatched by now.
    expect((await api(engine, 'GET', 'sys/health')).status).toBe(200);
    expect((await api(engine, 'POST', 'auth/token/revoke', { body: { token: t.client_token } })).status).toBe(204);
    expect(await held.finish()).toBe(403);
    expect((await lookup(t.client_token)).status).toBe(403);
    expect((await api(engine, 'POST', 'auth/token/lookup-accessor', { body: { accessor: t.accessor } })).status).toBe(400);
  });

  it('any request whose body arrives after a revocation is refused', async () => {
    const t = await create({ ttl: '1h', policies: ['root'] });
    const held = slowRequest('sys/policy/late', t.client_token, JSON.stringify({ policy: 'path "x" { capabilities = ["read"] }' }));
    expect((await api(engine, 'GET', 'sys/health')).status).toBe(200);
    expect((await api(engine, 'POST', 'auth/token/revoke', { body: { token: t.client_token } })).status).toBe(204);
    expect(await held.finish()).toBe(403);
    expect((await api(engine, 'GET', 'sys/policy/late')).status).toBe(404);
  });

  it('num_uses=1 with 20 concurrent requests: exactly one succeeds', async () => {
    const t = await create({ ttl: '1h', num_uses: 1 });
    const all = await Promise.all(Array.from({ length: 20 }, () => lookup(t.client_token)));
    expect(all.filter((r) => r.status === 200)).toHaveLength(1);
    expect(all.filter((r) => r.status === 403)).toHaveLength(19);
    expect((await lookup(t.client_token)).status).toBe(403);
  });

  it('num_uses=3 with concurrent requests: exactly three succeed', async () => {
    const t = await create({ ttl: '1h', num_uses: 3 });
    const all = await Promise.all(Array.from({ length: 20 }, () => lookup(t.client_token)));
    expect(all.filter((r) => r.status === 200)).toHaveLength(3);
  });

  it('revoke, renewals and uses racing: the token ends revoked and nothing succeeds after the revoke', async () => {
    for (let round = 0; round < 5; round++) {
      const t = await create({ ttl: '1h', num_uses: 0 });
      const racers = [...Array.from({ length: 10 }, () => renew(t.client_token)), ...Array.from({ length: 10 }, () => lookup(t.client_token))];
      const revoked = api(engine, 'POST', 'auth/token/revoke', { body: { token: t.client_token } }).then((r) => r.status);
      const results = await Promise.all(racers);
      expect(await revoked).toBe(204);
      for (const r of results) expect([200, 403]).toContain(r.status);
      expect((await lookup(t.client_token)).status).toBe(403);
      expect((await renew(t.client_token)).status).toBe(403);
      expect((await api(engine, 'POST', 'auth/token/lookup-accessor', { body: { accessor: t.accessor } })).status).toBe(400);
    }
  });

  it('a renewal keeps the uses already spent', async () => {
    const t = await create({ ttl: '1h', num_uses: 3 });
    expect((await renew(t.client_token)).status).toBe(200);
    const l = await lookup(t.client_token);
    expect(l.body.data.num_uses).toBe(1);
    expect((await lookup(t.client_token)).status).toBe(200);
    expect((await lookup(t.client_token)).status).toBe(403);
  });
});

describe('root tokens and Vault status codes', () => {
  it('the root token is not renewable, renewal is refused and it keeps no expiry', async () => {
    const before = await api(engine, 'GET', 'auth/token/lookup-self');
    expect(before.body.data).toMatchObject({ renewable: false, expire_time: null, ttl: 0 });
    const r = await api(engine, 'POST', 'auth/token/renew-self', { body: {} });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatch(/not renewable/);
    const after = await api(engine, 'GET', 'auth/token/lookup-self');
    expect(after.body.data).toMatchObject({ renewable: false, expire_time: null, ttl: 0 });
  });

  it('policies ["root"] creates a root token: root alone, no expiry, only by a root token', async () => {
    const r = await api(engine, 'POST', 'auth/token/create', { body: { policies: ['root'] } });
    expect(r.status).toBe(200);
    expect(r.body.auth).toMatchObject({ policies: ['root'], token_policies: ['root'], lease_duration: 0, renewable: false });
    const l = await lookup(r.body.auth.client_token);
    expect(l.body.data).toMatchObject({ policies: ['root'], expire_time: null });
    const mixed = await api(engine, 'POST', 'auth/token/create', { body: { policies: ['root', 'default', 'x'] } });
    expect(mixed.body.auth.policies).toEqual(['root']);
    await api(engine, 'POST', 'sys/policy/creator', { body: { policy: 'path "auth/token/create" { capabilities = ["update", "sudo"] }' } });
    const creator = await create({ ttl: '1h', policies: ['creator'] });
    const refused = await api(engine, 'POST', 'auth/token/create', { token: creator.client_token, body: { policies: ['root'] } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatch(/root tokens may only be created by a root token/);
  });

  it('lookup of an unknown token is 403, revoke of an unknown token is 204', async () => {
    const l = await api(engine, 'POST', 'auth/token/lookup', { body: { token: 'hvs.000000000000unknownunknownunknown' } });
    expect(l.status).toBe(403);
    expect(l.body.errors).toEqual(['bad token']);
    expect((await api(engine, 'POST', 'auth/token/revoke', { body: { token: 'hvs.000000000000unknownunknownunknown' } })).status).toBe(204);
  });

  it('lookup without a token field looks up the caller, as Vault and OpenBao do; renew and revoke still require it', async () => {
    // Measured on OpenBao 2.7.2 (test/real/engine-parity.test.ts): POST auth/token/lookup {} answers 200 with the
    // caller's own token (Vault's token store: an empty id is the client token), where the engine answered 400.
    // (The default policy grants lookup-self only, so the caller here is the root token.)
    const self = await api(engine, 'GET', 'auth/token/lookup-self');
    const l = await api(engine, 'POST', 'auth/token/lookup', { body: {} });
    expect({ status: l.status, accessor: l.body?.data?.accessor, policies: l.body?.data?.policies }).toEqual({
      status: 200,
      accessor: self.body.data.accessor,
      policies: ['root'],
    });
    expect((await api(engine, 'POST', 'auth/token/renew', { body: {} })).status).toBe(400);
    expect((await api(engine, 'POST', 'auth/token/revoke', { body: {} })).status).toBe(400);
  });

  it('lookups after a renewal carry last_renewal_time and last_renewal', async () => {
    const t = await create({ ttl: '1h' });
    expect((await lookup(t.client_token)).body.data.last_renewal_time).toBeUndefined();
    await clock.advance(10 * 60 * 1000);
    const renewedAt = clock.now();
    expect((await renew(t.client_token)).status).toBe(200);
    const l = await lookup(t.client_token);
    expect(l.body.data.last_renewal_time).toBe(Math.floor(renewedAt / 1000));
    expect(l.body.data.last_renewal).toBe(new Date(renewedAt).toISOString());
    const other = await api(engine, 'POST', 'auth/token/lookup', { body: { token: t.client_token } });
    expect(other.body.data.last_renewal_time).toBe(Math.floor(renewedAt / 1000));
  });
});

describe('re-check: every token write races a revocation and loses', () => {
  const held = heldRequest;
  const sync = async () => expect((await api(engine, 'GET', 'sys/health')).status).toBe(200);
  const revokers: [string, (t: { client_token: string; accessor: string }) => Promise<number>][] = [
    ['revoke', (t) => api(engine, 'POST', 'auth/token/revoke', { body: { token: t.client_token } }).then((r) => r.status)],
    ['revoke-accessor', (t) => api(engine, 'POST', 'auth/token/revoke-accessor', { body: { accessor: t.accessor } }).then((r) => r.status)],
    ['revoke-self', (t) => api(engine, 'POST', 'auth/token/revoke-self', { token: t.client_token }).then((r) => r.status)],
  ];

  it.each(revokers)('a held renew (of another token) loses to %s', async (_name, revoke) => {
    const t = await create({ ttl: '1h' });
    const h = held('auth/token/renew', ROOT, JSON.stringify({ token: t.client_token, increment: '2h' }));
    await sync();
    expect(await revoke(t)).toBe(204);
    expect((await h.finish()).status).toBeGreaterThanOrEqual(400);
    expect((await lookup(t.client_token)).status).toBe(403);
    expect((await api(engine, 'POST', 'auth/token/lookup-accessor', { body: { accessor: t.accessor } })).status).toBe(400);
  });

  it.each(revokers)('a held renew-self loses to %s', async (_name, revoke) => {
    const t = await create({ ttl: '1h' });
    const h = held('auth/token/renew-self', t.client_token, '{"increment":"2h"}');
    await sync();
    expect(await revoke(t)).toBe(204);
    expect((await h.finish()).status).toBe(403);
    expect((await lookup(t.client_token)).status).toBe(403);
  });

  it('a child create held by its parent loses to the parent revocation; no child survives', async () => {
    const parent = await create({ ttl: '1h', policies: ['root'] });
    const h = held('auth/token/create', parent.client_token, JSON.stringify({ ttl: '1h', policies: ['default'] }));
    await sync();
    expect((await api(engine, 'POST', 'auth/token/revoke-accessor', { body: { accessor: parent.accessor } })).status).toBe(204);
    const r = await h.finish();
    expect(r.status).toBe(403);
    expect(r.body.auth).toBeUndefined();
  });

  it('tokens created from a child while the grandparent is revoked never outlive it', async () => {
    const grand = await create({ ttl: '1h', policies: ['root'] });
    const child = (await api(engine, 'POST', 'auth/token/create', { token: grand.client_token, body: { ttl: '1h', policies: ['root'] } })).body.auth.client_token as string;
    const creations = Array.from({ length: 15 }, () => api(engine, 'POST', 'auth/token/create', { token: child, body: { ttl: '1h', policies: ['default'] } }));
    const renewals = Array.from({ length: 5 }, () => renew(child));
    const revoked = api(engine, 'POST', 'auth/token/revoke', { body: { token: grand.client_token } });
    const made = (await Promise.all(creations)).filter((r) => r.status === 200).map((r) => r.body.auth.client_token as string);
    await Promise.all(renewals);
    expect((await revoked).status).toBe(204);
    expect((await lookup(child)).status).toBe(403);
    for (const t of made) expect((await lookup(t)).status).toBe(403);
  });

  it('a held login-issued token renewal via auth/token/renew loses once the auth mount is disabled', async () => {
    await api(engine, 'POST', 'sys/auth/racing', { body: { type: 'static' } });
    await api(engine, 'POST', 'auth/racing/role/r', { body: { token_ttl: '1h' } });
    const t = (await api(engine, 'POST', 'auth/racing/login', { token: null, body: { role: 'r' } })).body.auth.client_token as string;
    const h = held('auth/token/renew-self', t, '{}');
    await sync();
    expect((await api(engine, 'DELETE', 'sys/auth/racing')).status).toBe(204);
    expect((await h.finish()).status).toBeGreaterThanOrEqual(400);
    expect((await lookup(t)).status).toBe(403);
  });

  it('num_uses=2 spent concurrently across different routes: exactly two requests succeed', async () => {
    for (let round = 0; round < 3; round++) {
      await api(engine, 'POST', 'sys/policy/uses', {
        body: { policy: 'path "sys/policy/*" { capabilities = ["read", "list"] }\npath "sys/capabilities-self" { capabilities = ["update"] }' },
      });
      const t = await create({ ttl: '1h', num_uses: 2, policies: ['uses'] });
      const reqs = [
        lookup(t.client_token),
        api(engine, 'GET', 'sys/policy/uses', { token: t.client_token }),
        api(engine, 'POST', 'sys/capabilities-self', { token: t.client_token, body: { path: 'x' } }),
        api(engine, 'LIST' as 'GET', 'sys/policy', { token: t.client_token }),
        lookup(t.client_token),
      ];
      const all = await Promise.all(reqs);
      expect(all.filter((r) => r.status < 400)).toHaveLength(2);
      expect(all.filter((r) => r.status === 403)).toHaveLength(3);
      expect((await api(engine, 'POST', 'auth/token/lookup-accessor', { body: { accessor: t.accessor } })).status).toBe(400);
    }
  });

  it('a refused request does not spend a use', async () => {
    const t = await create({ ttl: '1h', num_uses: 2, policies: ['default'] });
    expect((await api(engine, 'GET', 'sys/policy/root', { token: t.client_token })).status).toBe(403); // denied by the ACL
    expect((await api(engine, 'GET', 'sys/nope', { token: t.client_token })).status).toBeGreaterThanOrEqual(400);
    const l = await lookup(t.client_token);
    expect(l.status).toBe(200);
    expect(l.body.data.num_uses).toBe(1);
  });
});

describe('re-check: root tokens and lookups', () => {
  it('a child of the root token without policies is a root token without expiry, not renewable', async () => {
    const r = await api(engine, 'POST', 'auth/token/create', { body: {} });
    expect(r.body.auth).toMatchObject({ policies: ['root'], lease_duration: 0, renewable: false });
    const renewed = await renew(r.body.auth.client_token);
    expect(renewed.status).toBe(400);
    expect((await lookup(r.body.auth.client_token)).body.data).toMatchObject({ expire_time: null, ttl: 0, renewable: false });
  });

  it.each([[['ROOT']], [[' root ']], [['default', 'Root']], ['root,default'], [' ROOT']])('a non-root creator cannot get a root token with policies %j', async (policies) => {
    await api(engine, 'POST', 'sys/policy/creator2', { body: { policy: 'path "auth/token/create" { capabilities = ["update", "sudo"] }' } });
    const creator = await create({ ttl: '1h', policies: ['creator2'] });
    const r = await api(engine, 'POST', 'auth/token/create', { token: creator.client_token, body: { policies } });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatch(/root tokens may only be created by a root token/);
  });

  it('a periodic or explicit-max-TTL root token keeps its limit', async () => {
    const periodic = await api(engine, 'POST', 'auth/token/create', { body: { policies: ['root'], period: '1h' } });
    expect(periodic.body.auth.lease_duration).toBe(H);
    const capped = await api(engine, 'POST', 'auth/token/create', { body: { policies: ['root'], explicit_max_ttl: '2h' } });
    expect(capped.body.auth.lease_duration).toBe(2 * H);
    expect((await lookup(capped.body.auth.client_token)).body.data.expire_time).not.toBeNull();
  });

  it("unknown accessors and tokens get Vault's answers on every route", async () => {
    const accessor = 'A'.repeat(44);
    for (const path of ['lookup-accessor', 'revoke-accessor']) {
      const r = await api(engine, 'POST', `auth/token/${path}`, { body: { accessor } });
      expect(r.status).toBe(400);
      expect(r.body.errors[0]).toMatch(/invalid accessor/);
    }
    expect((await api(engine, 'POST', 'auth/token/renew', { body: { token: 'hvs.unknown' } })).status).toBe(400);
    expect((await api(engine, 'POST', 'auth/token/lookup', { body: { token: 'hvb.garbage' } })).status).toBe(403);
    expect((await api(engine, 'POST', 'auth/token/revoke', { body: { token: 'hvs.unknown' } })).status).toBe(204);
    expect((await api(engine, 'GET', 'auth/token/lookup-self', { token: 'hvs.unknown' })).status).toBe(403);
  });
});

describe('re-check: children die with their parent', () => {
  it('a service child stops working when its parent expires, even if nobody looked the parent up', async () => {
    const parent = await create({ ttl: '10m', policies: ['root'] });
    const child = (await api(engine, 'POST', 'auth/token/create', { token: parent.client_token, body: { ttl: '1h' } })).body.auth;
    const grandchild = (await api(engine, 'POST', 'auth/token/create', { token: child.client_token, body: { ttl: '1h', policies: ['root'] } })).body.auth;
    expect((await lookup(grandchild.client_token)).status).toBe(200);
    await clock.advance(11 * 60 * 1000);
    expect((await api(engine, 'POST', 'auth/token/lookup-accessor', { body: { accessor: grandchild.accessor } })).status).toBe(400);
    expect((await lookup(grandchild.client_token)).status).toBe(403);
    expect((await lookup(child.client_token)).status).toBe(403);
    expect((await api(engine, 'POST', 'auth/token/lookup-accessor', { body: { accessor: child.accessor } })).status).toBe(400);
    expect((await renew(child.client_token)).status).toBe(403);
  });

  it('a child of a parent whose last use is spent is revoked with it', async () => {
    const parent = await create({ ttl: '1h', policies: ['root'], num_uses: 2 });
    const child = (await api(engine, 'POST', 'auth/token/create', { token: parent.client_token, body: { ttl: '1h' } })).body.auth.client_token as string;
    expect((await lookup(child)).status).toBe(200);
    expect((await lookup(parent.client_token)).status).toBe(200); // the last use: the parent is revoked after it
    expect((await lookup(child)).status).toBe(403);
  });

  it('a batch token created by a service token stops working when the parent is revoked (Vault checks the parent on every use)', async () => {
    const parent = await create({ ttl: '1h', policies: ['root'] });
    const r = await api(engine, 'POST', 'auth/token/create', { token: parent.client_token, body: { type: 'batch', ttl: '30m', policies: ['default'] } });
    const batch = r.body.auth.client_token as string;
    expect((await lookup(batch)).status).toBe(200);
    expect((await lookup(batch)).body.data.orphan).toBe(false);
    expect((await api(engine, 'POST', 'auth/token/revoke', { body: { token: parent.client_token } })).status).toBe(204);
    expect((await lookup(batch)).status).toBe(403);
    expect((await api(engine, 'POST', 'auth/token/lookup', { body: { token: batch } })).status).toBe(403);
    // An orphan batch token (no_parent, or created by the root token) lives on.
    const p2 = await create({ ttl: '1h', policies: ['root'] });
    const orphan = (await api(engine, 'POST', 'auth/token/create', { token: p2.client_token, body: { type: 'batch', ttl: '30m', no_parent: true } })).body.auth
      .client_token as string;
    await api(engine, 'POST', 'auth/token/revoke', { body: { token: p2.client_token } });
    expect((await lookup(orphan)).status).toBe(200);
  });

  it("a batch child outlives neither its parent's expiry nor its parent's last use", async () => {
    const shortParent = await create({ ttl: '10m', policies: ['root'] });
    const b1 = (await api(engine, 'POST', 'auth/token/create', { token: shortParent.client_token, body: { type: 'batch', ttl: '30m' } })).body.auth.client_token as string;
    expect((await lookup(b1)).status).toBe(200);
    await clock.advance(11 * 60 * 1000);
    expect((await lookup(b1)).status).toBe(403);
    const limited = await create({ ttl: '1h', policies: ['root'], num_uses: 2 });
    const b2 = (await api(engine, 'POST', 'auth/token/create', { token: limited.client_token, body: { type: 'batch', ttl: '30m' } })).body.auth.client_token as string;
    expect((await lookup(b2)).status).toBe(200);
    expect((await lookup(limited.client_token)).status).toBe(200); // the parent's last use
    expect((await lookup(b2)).status).toBe(403);
  });
});

it('re-check: a token id sent with the wrong JSON type is never echoed (lookup, renew, revoke)', async () => {
  const t = await create({ ttl: '1h' });
  for (const path of ['lookup', 'renew', 'revoke']) {
    for (const token of [[t.client_token], { id: t.client_token }]) {
      const r = await api(engine, 'POST', `auth/token/${path}`, { body: { token } });
      expect(r.status).toBe(400);
      expect(r.body.errors[0]).toMatch(/\(sensitive value\) for field "token"/);
      expect(r.text).not.toContain(t.client_token);
    }
  }
  expect((await lookup(t.client_token)).status).toBe(200);
});

it('re-check: auth/token/create-orphan follows the same root-token rules and makes orphans', async () => {
  const r = await api(engine, 'POST', 'auth/token/create-orphan', { body: { policies: ['root', 'default'] } });
  expect(r.status).toBe(200);
  expect(r.body.auth).toMatchObject({ policies: ['root'], lease_duration: 0, renewable: false, orphan: true });
  expect((await lookup(r.body.auth.client_token)).body.data).toMatchObject({ expire_time: null, path: 'auth/token/create-orphan', orphan: true });
  await api(engine, 'POST', 'sys/policy/orphan-maker', { body: { policy: 'path "auth/token/create-orphan" { capabilities = ["update", "sudo"] }' } });
  const maker = await create({ ttl: '1h', policies: ['orphan-maker'] });
  const refused = await api(engine, 'POST', 'auth/token/create-orphan', { token: maker.client_token, body: { policies: 'ROOT' } });
  expect(refused.status).toBe(400);
  expect(refused.body.errors[0]).toMatch(/root tokens may only be created by a root token/);
  const orphan = await api(engine, 'POST', 'auth/token/create-orphan', { token: maker.client_token, body: { ttl: '1h', policies: ['default'] } });
  expect(orphan.body.auth.orphan).toBe(true);
  await api(engine, 'POST', 'auth/token/revoke', { body: { token: maker.client_token } });
  expect((await lookup(orphan.body.auth.client_token)).status).toBe(200);
});

it('re-check: auth/token/revoke-orphan revokes the token and keeps its children as orphans; sudo only', async () => {
  const parent = await create({ ttl: '1h', policies: ['root'] });
  const child = (await api(engine, 'POST', 'auth/token/create', { token: parent.client_token, body: { ttl: '1h', policies: ['root'] } })).body.auth;
  const grandchild = (await api(engine, 'POST', 'auth/token/create', { token: child.client_token, body: { ttl: '1h' } })).body.auth;
  const batch = (await api(engine, 'POST', 'auth/token/create', { token: parent.client_token, body: { type: 'batch', ttl: '30m' } })).body.auth.client_token as string;
  const plain = await create({ ttl: '1h', policies: ['default'] });
  expect((await api(engine, 'POST', 'auth/token/revoke-orphan', { token: plain.client_token, body: { token: parent.client_token } })).status).toBe(403);
  expect((await api(engine, 'POST', 'auth/token/revoke-orphan', { body: { token: parent.client_token } })).status).toBe(204);
  expect((await lookup(parent.client_token)).status).toBe(403);
  const c = await lookup(child.client_token);
  expect(c.status).toBe(200);
  expect(c.body.data.orphan).toBe(true);
  expect((await lookup(grandchild.client_token)).status).toBe(200);
  expect((await lookup(batch)).status).toBe(403); // a batch token lives only while its parent does
  expect((await renew(child.client_token)).status).toBe(200);
  // The new orphan still heads its own tree.
  expect((await api(engine, 'POST', 'auth/token/revoke', { body: { token: child.client_token } })).status).toBe(204);
  expect((await lookup(grandchild.client_token)).status).toBe(403);
  expect((await api(engine, 'POST', 'auth/token/revoke-orphan', { body: { token: 'hvs.unknown' } })).status).toBe(204);
});

it('re-check: auth/token/renew-accessor renews with the same re-checks, and loses to a revocation', async () => {
  const token = await login('by-accessor', { token_ttl: '1h', token_max_ttl: '3h' });
  const accessor = (await lookup(token)).body.data.accessor as string;
  await clock.advance(30 * 60 * 1000);
  const r = await api(engine, 'POST', 'auth/token/renew-accessor', { body: { accessor, increment: '2h' } });
  expect(r.status).toBe(200);
  expect(r.body.auth.client_token).toBe('');
  expect(r.body.auth.lease_duration).toBe(2 * H); // the increment, within the role's max TTL
  expect(r.body.warnings).toBeNull();
  expect((await lookup(token)).body.data.last_renewal_time).toBe(Math.floor(clock.now() / 1000));
  const rootAccessor = (await api(engine, 'GET', 'auth/token/lookup-self')).body.data.accessor as string;
  expect((await api(engine, 'POST', 'auth/token/renew-accessor', { body: { accessor: rootAccessor } })).body.errors[0]).toMatch(/not renewable/);
  expect((await api(engine, 'POST', 'auth/token/renew-accessor', { body: { accessor: 'B'.repeat(44) } })).body.errors[0]).toMatch(/invalid accessor/);
  // Racing a revocation: it never brings the token back.
  const racers = Array.from({ length: 10 }, () => api(engine, 'POST', 'auth/token/renew-accessor', { body: { accessor } }));
  expect((await api(engine, 'POST', 'auth/token/revoke-accessor', { body: { accessor } })).status).toBe(204);
  for (const x of await Promise.all(racers)) expect([200, 400, 403]).toContain(x.status);
  expect((await lookup(token)).status).toBe(403);
  expect((await api(engine, 'POST', 'auth/token/renew-accessor', { body: { accessor } })).status).toBe(400);
});
