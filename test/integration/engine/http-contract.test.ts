// The HTTP contract over a real loopback socket: auth errors, LIST, 404/405, 413, bad JSON, 204.

import { request } from 'undici';
import { connect } from 'node:net';
import { startTestEngine, api } from '../../support/engine';
import type { Engine } from '../../../src/engine/engine';

let engine: Engine;
beforeAll(async () => {
  engine = await startTestEngine({ maxBodyBytes: 64 * 1024 });
  await api(engine, 'PUT', 'sys/policy/reader', { body: { policy: 'path "sys/policy/*" { capabilities = ["read", "list"] }' } });
});
afterAll(() => engine.close());

/** Sends a raw request (for methods the client library will not send, like LIST). */
function raw(method: string, path: string, token: string): Promise<{ status: number; body: string }> {
  const { port } = new URL(engine.url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), '127.0.0.1', () => {
      s.write(`${method} /v1/${path} HTTP/1.1\r\nHost: x\r\nX-Vault-Token: ${token}\r\nConnection: close\r\n\r\n`);
    });
    let data = '';
    s.on('data', (c) => (data += c.toString()));
    s.on('end', () => {
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(data)?.[1]);
      resolve({ status, body: data.slice(data.indexOf('\r\n\r\n') + 4) });
    });
    s.on('error', reject);
  });
}

describe('authentication errors', () => {
  it.each([
    ['missing token', null],
    ['unknown token', 'hvs.not-a-real-token'],
    ['malformed batch token', 'hvb.###'],
  ])('%s → 403 permission denied', async (_label, token) => {
    const r = await api(engine, 'GET', 'sys/auth', { token });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ errors: ['permission denied'] });
  });

  it('accepts Authorization: Bearer', async () => {
    const r = await api(engine, 'GET', 'sys/auth', { token: null, headers: { authorization: 'Bearer root-test-token' } });
    expect(r.status).toBe(200);
  });

  it('does not reveal whether a path exists to a caller without a token', async () => {
    const r = await api(engine, 'GET', 'sys/no/such/path', { token: null });
    expect(r.status).toBe(403);
  });
});

describe('LIST', () => {
  it('LIST and GET ?list=true give the same body', async () => {
    const viaList = await raw('LIST', 'sys/policies/acl', 'root-test-token');
    const viaQuery = await api(engine, 'GET', 'sys/policies/acl?list=true');
    expect(viaList.status).toBe(200);
    const a = JSON.parse(viaList.body);
    expect(a.data).toEqual(viaQuery.body.data);
    expect(a.data.keys).toEqual(['default', 'reader', 'root']);
  });

  it('LIST without a token is refused the same way', async () => {
    const r = await raw('LIST', 'sys/policies/acl', 'bad');
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body)).toEqual({ errors: ['permission denied'] });
  });

  it('an unparsable list value is a 400', async () => {
    const r = await api(engine, 'GET', 'sys/policies/acl?list=maybe');
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatch(/list/);
  });
});

describe('404 and 405', () => {
  it('unknown path → 404 unsupported path', async () => {
    const r = await api(engine, 'GET', 'sys/definitely-not-here');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ errors: ['unsupported path'] });
  });
  it('missing object → 404 with an errors list', async () => {
    const r = await api(engine, 'GET', 'sys/policy/absent');
    expect(r.status).toBe(404);
    expect(Array.isArray(r.body.errors)).toBe(true);
  });
  it('a path without the /v1/ prefix → 404', async () => {
    const res = await request(`${engine.url}/sys/health`);
    expect(res.statusCode).toBe(404);
    expect(await res.body.json()).toEqual({ errors: ['unsupported path'] });
  });
  it('an operation the route does not implement → 405 unsupported operation', async () => {
    const r = await api(engine, 'DELETE', 'sys/auth');
    expect(r.status).toBe(405);
    expect(r.body).toEqual({ errors: ['unsupported operation'] });
  });
  it('an unknown method → 405', async () => {
    const r = await api(engine, 'PATCH', 'sys/policy/reader', { body: {} });
    expect(r.status).toBe(405);
    expect(r.body).toEqual({ errors: ['unsupported operation'] });
  });
});

describe('bodies', () => {
  it('413 on a body over the configured limit', async () => {
    const r = await api(engine, 'PUT', 'sys/policy/big', { rawBody: JSON.stringify({ policy: 'x'.repeat(70 * 1024) }) });
    expect(r.status).toBe(413);
    expect(r.body.errors[0]).toMatch(/too large.*65536 bytes/);
  });

  it('malformed JSON → 400 naming the problem', async () => {
    const r = await api(engine, 'PUT', 'sys/policy/p', { rawBody: '{"policy": "x",' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatch(/^failed to parse JSON input: .*JSON/);
  });

  it('a JSON body that is not an object → 400 saying what it got', async () => {
    const r = await api(engine, 'PUT', 'sys/policy/p', { rawBody: '[1,2]' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatch(/must be a JSON object, got an array/);
  });

  it('an empty write answers 204 with no body', async () => {
    const r = await api(engine, 'PUT', 'sys/policy/empty-ok', { body: { policy: 'path "x" { capabilities = ["read"] }' } });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
  });

  it('unknown body fields are ignored with a warning', async () => {
    const r = await api(engine, 'PUT', 'sys/policy/warned', { body: { policy: 'path "x" { capabilities = ["read"] }', colour: 'blue' } });
    expect(r.status).toBe(200);
    expect(r.body.warnings).toEqual(['Endpoint ignored these unrecognized parameters: [colour]']);
    expect(r.body.data).toBeNull();
  });

  it('a field of the wrong type → 400 naming the field', async () => {
    const r = await api(engine, 'PUT', 'sys/policy/typed', { body: { policy: { nested: true } } });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatch(/field "policy"/);
  });
});

describe('envelope', () => {
  it('successful reads carry the full envelope', async () => {
    const r = await api(engine, 'GET', 'sys/policies/acl/reader');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/application\/json/);
    expect(Object.keys(r.body).sort()).toEqual(['auth', 'data', 'lease_duration', 'lease_id', 'renewable', 'request_id', 'warnings', 'wrap_info']);
    expect(r.body.data).toEqual({ name: 'reader', policy: 'path "sys/policy/*" { capabilities = ["read", "list"] }' });
  });

  it('health, seal status and license status', async () => {
    const h = await api(engine, 'GET', 'sys/health', { token: null });
    expect(h.status).toBe(200);
    expect(h.body).toMatchObject({ initialized: true, sealed: false, enterprise: true });
    const s = await api(engine, 'GET', 'sys/seal-status', { token: null });
    expect(s.body).toMatchObject({ sealed: false, initialized: true });
    const l = await api(engine, 'GET', 'sys/license/status');
    expect(l.body.data.edition).toBe('enterprise');
  });
});
