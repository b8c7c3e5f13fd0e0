// Generated malformed requests (bad JSON, wrong types, huge values, odd paths, methods and
// headers): never a 5xx, never a crash, every error body in the {"errors": [...]} envelope.

import { request } from 'undici';
import { startTestEngine, api, ROOT_TOKEN } from '../../support/engine';
import { RawConnection, head, type RawResponse } from '../../support/raw-http';
import { staticAuthMethod } from '../../support/static-auth';
import { authMethodFactories } from '../../../src/engine/auth/methods';
import type { Engine } from '../../../src/engine/engine';

/** Small deterministic PRNG (mulberry32) so a failure reproduces. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'LIST', 'PATCH', 'OPTIONS', 'HEAD'];
const PATHS = [
  'sys/auth',
  'sys/auth/cloud',
  'sys/auth/%2e%2e/x',
  'sys/auth/a//b',
  'sys/policy/p',
  'sys/policy/',
  'sys/policies/acl/x',
  'sys/namespaces/n',
  'sys/namespaces/sys',
  'sys/capabilities-self',
  'sys/health',
  'sys/license/status',
  'auth/token/create',
  'auth/token/lookup',
  'auth/token/renew-self',
  'auth/token/revoke',
  'auth/token/lookup-accessor',
  'auth/static/role/r',
  'auth/static/role/-bad-',
  'auth/static/login',
  'auth/cloud/config',
  'auth/cloud/role/web',
  'auth/cloud/login',
  'auth/cloud/roles',
  'auth/cloud/role/web/labels',
  'auth/cloud/role/web/service-accounts',
  'sys/storage/raft/snapshot-auto/config/daily',
  'sys/storage/raft/snapshot-auto/status/daily',
  'identity/entity/id/x',
  '%00',
  'sys/%ff%fe',
  'a'.repeat(3000),
  'sys/auth/' + 'x/'.repeat(200),
  'ns1/sys/auth',
  '..',
  'sys/policy/ü',
];
const FIELDS = [
  'policy',
  'rules',
  'type',
  'description',
  'ttl',
  'policies',
  'num_uses',
  'period',
  'meta',
  'token',
  'role',
  'jwt',
  'bound_cidrs',
  'token_ttl',
  'token_policies',
  'interval',
  'retain',
  'storage_type',
  'path_prefix',
  'credentials',
  'custom_endpoint',
  'iam_metadata',
  'bound_labels',
  'increment',
  'accessor',
  'no_parent',
  'explicit_max_ttl',
];

function value(r: () => number, depth = 0): unknown {
  const k = Math.floor(r() * 12);
  switch (k) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return Math.floor(r() * 1e12) * (r() < 0.3 ? -1 : 1);
    case 3:
      return r() * 1e300;
    case 4:
      return 'x'.repeat(Math.floor(r() * 200000));
    case 5:
      return ['-1h', '15m', 'abc', '1e9', '99999999999999999999d', ' 5 ', '\u0000', '10.0.0.0/33', '*', 'default'][Math.floor(r() * 10)];
    case 6:
      return depth > 3 ? [] : Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1));
    case 7:
      return depth > 3 ? {} : Object.fromEntries(Array.from({ length: Math.floor(r() * 4) }, () => [FIELDS[Math.floor(r() * FIELDS.length)], value(r, depth + 1)]));
    case 8:
      return '{"nested": "json"}';
    case 9:
      return 'k=v,bad,=x';
    case 10:
      return 1.5;
    default:
      return '🙂'.repeat(10);
  }
}

function body(r: () => number): string | undefined {
  const k = Math.floor(r() * 10);
  if (k === 0) return undefined;
  if (k === 1) return '{"unterminated": ';
  if (k === 2) return '[1,2,3]';
  if (k === 3) return 'null';
  if (k === 4) return '"just a string"';
  if (k === 5) return '{'.repeat(5000) + '}'.repeat(5000);
  if (k === 6) return '\xff\xfe\x00binary';
  const obj: Record<string, unknown> = {};
  const n = Math.floor(r() * 6);
  for (let i = 0; i < n; i++) obj[FIELDS[Math.floor(r() * FIELDS.length)]] = value(r);
  return JSON.stringify(obj);
}

function headers(r: () => number): Record<string, string> {
  const h: Record<string, string> = {};
  const t = Math.floor(r() * 8);
  if (t < 5) h['x-vault-token'] = ROOT_TOKEN;
  else if (t === 5) h['x-vault-token'] = 'hvs.' + 'z'.repeat(Math.floor(r() * 500));
  else if (t === 6) h['authorization'] = r() < 0.5 ? 'Bearer ' : 'Basic abc';
  if (r() < 0.15) h['x-vault-namespace'] = ['nope', '../..', 'team', '/', 'a/b/c'][Math.floor(r() * 5)];
  if (r() < 0.2) h['content-type'] = ['text/plain', 'application/json; charset=latin1', 'multipart/form-data'][Math.floor(r() * 3)];
  return h;
}

let engine: Engine;
beforeAll(async () => {
  engine = await startTestEngine({ authMethods: [...authMethodFactories, staticAuthMethod] });
  await api(engine, 'POST', 'sys/auth/static', { body: { type: 'static' } });
  if (authMethodFactories.some((f) => f.type === 'cloud')) await api(engine, 'POST', 'sys/auth/cloud', { body: { type: 'cloud' } });
  await api(engine, 'POST', 'sys/namespaces/team');
});
afterAll(() => engine.close());

it('4,400 malformed requests: no 5xx, errors always in the envelope', async () => {
  const r = rng(20261122);
  const failures: string[] = [];
  let count = 0;
  const one = async () => {
    const method = METHODS[Math.floor(r() * METHODS.length)];
    const path = PATHS[Math.floor(r() * PATHS.length)] + (r() < 0.2 ? '?list=' + ['true', 'x', '1'][Math.floor(r() * 3)] : '');
    const b = method === 'GET' || method === 'HEAD' ? undefined : body(r);
    const h = headers(r);
    const label = `${method} /v1/${path.slice(0, 80)} body=${(b ?? '').slice(0, 60)}`;
    try {
      const res = await request(`${engine.url}/v1/${path}`, { method: method as 'GET', headers: h, body: b, headersTimeout: 15_000, bodyTimeout: 15_000 });
      const text = await res.body.text();
      count++;
      if (res.statusCode >= 500) failures.push(`${res.statusCode} ${label} → ${text.slice(0, 200)}`);
      if (res.statusCode >= 400 && method !== 'HEAD') {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        const ok = typeof parsed === 'object' && parsed !== null && Array.isArray((parsed as { errors?: unknown }).errors);
        if (!ok) failures.push(`no envelope: ${res.statusCode} ${label} → ${text.slice(0, 200)}`);
      }
    } catch (e) {
      failures.push(`transport error ${label}: ${(e as Error).message}`);
    }
  };
  for (let batch = 0; batch < 220; batch++) await Promise.all(Array.from({ length: 20 }, one));
  expect(failures).toEqual([]);
  expect(count).toBe(4400);
  expect((await api(engine, 'GET', 'sys/health', { token: null })).status).toBe(200);
}, 120_000);

/** Raw-socket cases: what an HTTP client library would never send. Each yields the pieces to write and how many answers to expect. */
function rawCase(r: () => number): { label: string; pieces: (string | Buffer)[]; answers: number } {
  const tok = `X-Vault-Token: ${ROOT_TOKEN}`;
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const split = (text: string) => {
    const at = 1 + Math.floor(r() * (text.length - 1));
    return [text.slice(0, at), text.slice(at)];
  };
  switch (Math.floor(r() * 7)) {
    case 0: {
      const pad = `X-Pad: ${'p'.repeat(Math.floor(r() * 1500))}`;
      const text = head('LIST', '/v1/' + pick(['sys/policies/acl', 'sys/policy', 'auth/token/accessors', 'sys/namespaces', 'auth/static/role']), [tok, pad]);
      return { label: 'split LIST + pipelined GET', pieces: [...split(text + head('GET', '/v1/sys/health'))], answers: 2 };
    }
    case 1: {
      const garbage = Buffer.alloc(64 * 1024 + Math.floor(r() * 512 * 1024), Math.floor(r() * 256));
      return {
        label: `restore of ${garbage.length} garbage bytes, then a second request`,
        pieces: [head('POST', '/v1/sys/storage/raft/snapshot', [tok, `Content-Length: ${garbage.length}`]), garbage, head('GET', '/v1/sys/health')],
        answers: 2,
      };
    }
    case 2:
      return {
        label: 'bad percent-encoding',
        pieces: [head(pick(['GET', 'LIST', 'DELETE']), '/v1/' + pick(['sys/auth/%ff', 'sys/policy/%', 'sys/%e0%80x', 'auth/%zz/login']), [tok])],
        answers: 1,
      };
    case 3: {
      const depth = 100 + Math.floor(r() * 6000);
      const body = `{"${pick(['ttl', 'policies', 'meta', 'policy'])}": ${'['.repeat(depth)}${']'.repeat(depth)}}`;
      return {
        label: `${depth}-deep JSON`,
        pieces: [head('POST', '/v1/' + pick(['auth/token/create', 'sys/policy/p', 'sys/auth/x']), [tok, `Content-Length: ${body.length}`]) + body],
        answers: 1,
      };
    }
    case 4: {
      const n = 50 + Math.floor(r() * 500);
      return {
        label: `header flood of ${n}`,
        pieces: [
          head(
            'GET',
            '/v1/sys/health',
            Array.from({ length: n }, (_, i) => `X-F${i}: ${'f'.repeat(100)}`),
          ),
        ],
        answers: 1,
      };
    }
    case 5:
      return { label: 'bad version', pieces: [head(pick(['LIST', 'GET', 'POST']), '/v1/sys/policy', [tok], pick(['HTTP/2.0', 'HTTP/0.8', 'HTTP/1.x', 'HTTP/3.0']))], answers: 1 };
    default:
      return { label: 'unknown method', pieces: [head(pick(['FROB', 'PROPFIND', 'LIS', 'LISTX', 'list']), '/v1/sys/policy', [tok])], answers: 1 };
  }
}

it('600 raw-socket cases: every answer comes (no hang), none is a 5xx, every error has the envelope', async () => {
  const r = rng(20261123);
  const failures: string[] = [];
  let answered = 0;
  const one = async () => {
    const c = rawCase(r);
    const conn = await RawConnection.open(engine.url);
    try {
      for (const p of c.pieces) await conn.write(p);
      for (let i = 0; i < c.answers; i++) {
        let res: RawResponse;
        try {
          res = await conn.response(10_000);
        } catch (e) {
          failures.push(`${c.label}: answer ${i + 1}: ${(e as Error).message.slice(0, 200)}`);
          return;
        }
        answered++;
        if (res.status >= 500 && res.status !== 505) failures.push(`${c.label}: ${res.status} ${res.body.slice(0, 200)}`);
        if (res.status >= 400) {
          let ok = false;
          try {
            ok = Array.isArray((JSON.parse(res.body) as { errors?: unknown }).errors);
          } catch {
            ok = false;
          }
          if (!ok) failures.push(`${c.label}: no envelope on ${res.status}: ${res.body.slice(0, 200)}`);
        }
      }
    } finally {
      conn.close();
    }
  };
  for (let batch = 0; batch < 60; batch++) await Promise.all(Array.from({ length: 10 }, one));
  expect(failures).toEqual([]);
  expect(answered).toBeGreaterThanOrEqual(600);
}, 120_000);

describe('re-check: a rejected secret is never echoed (item 9, every secret field)', () => {
  const MARK = 'SECRET-MARKER-7f3a';
  const shapes = (): unknown[] => [
    { private_key: MARK },
    [MARK],
    [[{ k: MARK }]],
    `{"type": "service_account", "private_key": "${MARK}"`, // a JSON document cut short
    `${MARK}\u0000${'x'.repeat(5000)}`,
    `not base64 ${MARK} !!!`,
  ];
  const SNAPSHOT = 'sys/storage/raft/snapshot-auto/config/echo';
  const secretFields: [string, Record<string, unknown>][] = [
    ['cloudone_secret_access_key', { storage_type: 'cloudone-store', cloudone_bucket: 'b', cloudone_region: 'r', cloudone_access_key_id: 'AKIA' }],
    ['cloudone_session_token', { storage_type: 'cloudone-store', cloudone_bucket: 'b', cloudone_region: 'r' }],
    ['cloudtwo_service_account_key', { storage_type: 'cloudtwo-store', cloudtwo_bucket: 'b' }],
    ['cloudthree_account_key', { storage_type: 'cloudthree-store', cloudthree_container_name: 'c', cloudthree_account_name: 'a' }],
    ['cloudthree_account_key', { storage_type: 'local', local_max_space: 1 }], // a field of another storage type
  ];

  it.each(secretFields)('snapshot-auto %s', async (name, rest) => {
    for (const v of shapes()) {
      const r = await api(engine, 'POST', SNAPSHOT, { body: { interval: '1h', path_prefix: 'p/', ...rest, [name]: v } });
      expect(r.status).toBeLessThan(500);
      expect(r.text).not.toContain(MARK);
      if (r.status === 200 || r.status === 204) {
        const read = await api(engine, 'GET', SNAPSHOT);
        expect(read.text).not.toContain(MARK);
        await api(engine, 'DELETE', SNAPSHOT);
      }
    }
  });

  it('cloud auth config credentials, in every shape', async () => {
    if (!authMethodFactories.some((f) => f.type === 'cloud')) return;
    for (const v of shapes()) {
      for (const body of [{ credentials: v }, { credentials: v, custom_endpoint: { api: 'not a url' } }, { credentials: v, unknown_field: 1 }]) {
        const r = await api(engine, 'POST', 'auth/cloud/config', { body });
        expect(r.status).toBeLessThan(500);
        expect(r.text).not.toContain(MARK);
      }
    }
    expect((await api(engine, 'GET', 'auth/cloud/config')).text).not.toContain(MARK);
  });
});
