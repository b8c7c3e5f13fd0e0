// Vault's HTTP edges over real sockets (issue 10, items 10-14): LIST served by the framing front,
// parser refusals in the envelope, connections kept usable after early answers, bad input as 400,
// response wrapping refused, Vault's top-level data copies, sys/health parameters.

import { request } from 'undici';
import { startTestEngine, api, ROOT_TOKEN } from '../../support/engine';
import { RawConnection, head } from '../../support/raw-http';
import type { Engine } from '../../../src/engine/engine';

let engine: Engine;
const logs: string[] = [];
beforeAll(async () => {
  engine = await startTestEngine({
    logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: (m) => void logs.push(m) },
  });
});
afterAll(() => engine.close());

const TOKEN = `X-Vault-Token: ${ROOT_TOKEN}`;
const envelope = (body: string) => JSON.parse(body) as { errors?: string[] };

describe('LIST (item 12)', () => {
  it('serves a LIST head split across two TCP reads, then a pipelined request on the same socket', async () => {
    const c = await RawConnection.open(engine.url);
    const text = head('LIST', '/v1/sys/policies/acl', [TOKEN]) + head('GET', '/v1/sys/health');
    await c.write(text.slice(0, 9));
    await c.write(text.slice(9));
    const a = await c.response();
    expect(a.status).toBe(200);
    expect(JSON.parse(a.body).data.keys).toEqual(expect.arrayContaining(['default', 'root']));
    const b = await c.response();
    expect(b.status).toBe(200);
    expect(JSON.parse(b.body).initialized).toBe(true);
    expect(c.isClosed).toBe(false); // keep-alive
    c.close();
  });

  it('a long (1.5 KB) LIST head written byte by byte in small pieces', async () => {
    const c = await RawConnection.open(engine.url);
    const text = head('LIST', '/v1/sys/policies/acl', [TOKEN, `X-Pad: ${'p'.repeat(1500)}`]);
    for (let i = 0; i < text.length; i += 700) await c.write(text.slice(i, i + 700));
    expect((await c.response()).status).toBe(200);
    c.close();
  });

  it.each([
    ['LIST with HTTP/2.0', head('LIST', '/x', [], 'HTTP/2.0'), 505],
    ['an unknown method', head('FROB', '/v1/sys/health'), 405],
    ['a garbage version', head('GET', '/v1/sys/health', [], 'HTTP/9.x'), 505],
    [
      'a header flood',
      head(
        'GET',
        '/v1/sys/health',
        Array.from({ length: 400 }, (_, i) => `X-H${i}: ${'a'.repeat(100)}`),
      ),
      431,
    ],
    ['a request line without a target', 'GET\r\n\r\n', 405],
    ['a request line with a bad target', 'GET /a b c\r\n\r\n', 400],
  ])('%s is refused at once with the envelope and its status', async (_label, text, status) => {
    const c = await RawConnection.open(engine.url);
    await c.write(text);
    const r = await c.response(3000);
    expect(r.status).toBe(status);
    expect(envelope(r.body).errors?.length).toBeGreaterThan(0);
    c.close();
  });
});

describe('unread bodies (item 10)', () => {
  it('a 3 MiB garbage restore is refused and the next request on the socket is answered', async () => {
    const c = await RawConnection.open(engine.url);
    const garbage = Buffer.alloc(3 * 1024 * 1024, 0x5a);
    await c.write(head('POST', '/v1/sys/storage/raft/snapshot', [TOKEN, `Content-Length: ${garbage.length}`]));
    await c.write(garbage);
    const a = await c.response(20_000);
    expect(a.status).toBe(400);
    expect(envelope(a.body).errors?.length).toBeGreaterThan(0);
    await c.write(head('GET', '/v1/sys/health'));
    expect((await c.response(20_000)).status).toBe(200);
    c.close();
  }, 60_000);

  it('a body refused before it is read (403) leaves the connection usable', async () => {
    const c = await RawConnection.open(engine.url);
    const body = JSON.stringify({ policy: 'x'.repeat(200_000) });
    await c.write(head('PUT', '/v1/sys/policy/p', [`Content-Length: ${body.length}`]) + body);
    expect((await c.response()).status).toBe(403);
    await c.write(head('GET', '/v1/sys/health'));
    expect((await c.response()).status).toBe(200);
    c.close();
  });

  it('a refused body larger than the drain limit gets Connection: close', async () => {
    const c = await RawConnection.open(engine.url);
    await c.write(head('POST', '/v1/sys/policy/p', [`Content-Length: ${64 * 1024 * 1024}`]) + '{');
    const r = await c.response();
    expect(r.status).toBe(403);
    expect(r.headers.connection).toBe('close');
    c.close();
  });

  it('a client that hangs up mid-body is not logged as an internal error', async () => {
    const before = logs.length;
    for (const path of ['/v1/sys/policy/p', '/v1/sys/storage/raft/snapshot']) {
      const c = await RawConnection.open(engine.url);
      await c.write(head('POST', path, [TOKEN, 'Content-Length: 100000']) + '{"policy": "');
      c.close();
    }
    // The engine is still serving, and nothing was logged as an error.
    expect((await api(engine, 'GET', 'sys/health', { token: null })).status).toBe(200);
    expect(logs.slice(before)).toEqual([]);
  });
});

describe('bad input is 400, never 500 (item 11)', () => {
  it.each(['sys/auth/%ff', 'sys/policy/%', 'sys/%e0%80'])('malformed percent-encoding: %s', async (path) => {
    const r = await api(engine, 'GET', path);
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatch(/percent-encoding/);
  });

  it('5000-deep JSON in a field value', async () => {
    const r = await api(engine, 'POST', 'auth/token/create', { rawBody: `{"ttl": ${'['.repeat(5000)}${']'.repeat(5000)}}` });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatch(/nesting deeper than 64/);
  });
});

describe('response wrapping (item 13)', () => {
  it('X-Vault-Wrap-TTL is refused rather than ignored', async () => {
    const r = await api(engine, 'POST', 'auth/token/create', { body: {}, headers: { 'x-vault-wrap-ttl': '60s' } });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatch(/response wrapping is not supported/);
  });
});

describe("Vault's response shapes (item 14)", () => {
  it('sys/auth copies the mount table to the top level, with the plugin fields', async () => {
    const r = await api(engine, 'GET', 'sys/auth');
    expect(r.body['token/']).toEqual(r.body.data['token/']);
    expect(r.body.data['token/']).toMatchObject({
      plugin_version: '',
      running_plugin_version: expect.stringMatching(/^v\d+\.\d+\.\d+\+builtin$/),
      running_sha256: '',
      config: { force_no_cache: false },
    });
  });

  it('sys/policy list and read, and sys/capabilities-self, copy data to the top level', async () => {
    await api(engine, 'PUT', 'sys/policy/top', { body: { policy: 'path "x" { capabilities = ["read"] }' } });
    const list = await api(engine, 'GET', 'sys/policy');
    expect(list.body.policies).toEqual(list.body.data.policies);
    const one = await api(engine, 'GET', 'sys/policy/top');
    expect(one.body).toMatchObject({ name: 'top', rules: 'path "x" { capabilities = ["read"] }' });
    const caps = await api(engine, 'POST', 'sys/capabilities-self', { body: { path: 'x' } });
    expect(caps.body.capabilities).toEqual(['root']);
  });

  it('duplicate X-Vault-Token headers use the first value', async () => {
    const c = await RawConnection.open(engine.url);
    await c.write(head('GET', '/v1/sys/auth', [TOKEN, 'X-Vault-Token: hvs.other']));
    expect((await c.response()).status).toBe(200);
    c.close();
  });

  it('HTTP/1.0 responses carry Content-Length', async () => {
    const c = await RawConnection.open(engine.url);
    await c.write(head('GET', '/v1/sys/health', [], 'HTTP/1.0'));
    const r = await c.response();
    expect(r.status).toBe(200);
    expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(r.body));
    c.close();
  });

  it('sys/health answers HEAD and honours the status-code parameters', async () => {
    const h = await request(`${engine.url}/v1/sys/health?activecode=299`, { method: 'HEAD' });
    await h.body.text();
    expect(h.statusCode).toBe(299);
    const r = await api(engine, 'GET', 'sys/health?standbycode=200&activecode=210&sealedcode=200&perfstandbyok=true', { token: null });
    expect(r.status).toBe(210);
    expect(r.body.initialized).toBe(true);
  });

  it.each(['activecode=abc', 'standbycode=99', 'sealedcode=1000', 'standbyok=maybe'])('sys/health?%s → 400', async (q) => {
    const r = await api(engine, 'GET', `sys/health?${q}`, { token: null });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatch(/invalid value for/);
  });
});

describe('re-check: other members of the same classes', () => {
  const health = head('GET', '/v1/sys/health');

  it.each([
    ['FROB', 'an unknown method'],
    ['list', 'a lowercase list (Vault compares methods case-sensitively)'],
    ['get', 'a lowercase get'],
    ['CONNECT', 'CONNECT (no tunnels here: Node alone would drop the connection unanswered)'],
  ])('%s (%s) is a 405 in the envelope and the connection stays usable, pipelined or not', async (method) => {
    const c = await RawConnection.open(engine.url);
    await c.write(health + head(method, '/v1/sys/policies/acl', [TOKEN]) + health);
    expect((await c.response(3000)).status).toBe(200);
    const r = await c.response(3000);
    expect(r.status).toBe(405);
    expect(envelope(r.body).errors).toEqual(['unsupported operation']);
    expect((await c.response(3000)).status).toBe(200);
    c.close();
  });

  it('a malformed request pipelined after a valid one: the valid one is answered, then the refusal', async () => {
    const c = await RawConnection.open(engine.url);
    await c.write(head('LIST', '/v1/sys/policies/acl', [TOKEN]) + health + 'GET /a b c\r\n\r\n');
    expect((await c.response(3000)).status).toBe(200);
    expect((await c.response(3000)).status).toBe(200);
    const r = await c.response(3000);
    expect(r.status).toBe(400);
    expect(envelope(r.body).errors?.length).toBe(1);
    expect(await c.closedByServer()).toBe(true);
  });

  it('LIST after a request that asked for an Upgrade (h2c) on the same connection', async () => {
    const c = await RawConnection.open(engine.url);
    await c.write(head('GET', '/v1/sys/health', ['Connection: Upgrade, HTTP2-Settings', 'Upgrade: h2c', 'HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA']));
    expect((await c.response(3000)).status).toBe(200);
    await c.write(head('LIST', '/v1/sys/policies/acl?x=1', [TOKEN]));
    expect((await c.response(3000)).status).toBe(200);
    c.close();
  });

  it('LIST split at every byte of the head, two pipelined', async () => {
    const text = head('LIST', '/v1/sys/policies/acl', [TOKEN]) + head('LIST', '/v1/sys/policies/acl?list=true', [TOKEN]);
    for (let k = 1; k < text.length; k += 3) {
      const c = await RawConnection.open(engine.url);
      await c.write(text.slice(0, k));
      await c.write(text.slice(k));
      expect((await c.response(3000)).status).toBe(200);
      expect((await c.response(3000)).status).toBe(200);
      c.close();
    }
  });

  it('LIST after a chunked body with an extension and a trailer, and a body that looks like a LIST head', async () => {
    const b = JSON.stringify({ policy: 'LIST /v1/x HTTP/1.1\r\n\r\n' });
    const c = await RawConnection.open(engine.url);
    await c.write(
      head('POST', '/v1/sys/policy/chunky', [TOKEN, 'Transfer-Encoding: chunked']) +
        `${b.length.toString(16)};ext=1\r\n${b}\r\n0\r\nX-T: 1\r\n\r\n` +
        head('LIST', '/v1/sys/policies/acl', [TOKEN]),
    );
    expect((await c.response(3000)).status).toBe(400); // not HCL: but answered and framed
    expect((await c.response(3000)).status).toBe(200);
    c.close();
  });

  it.each([
    ['no token', 'PUT', '/v1/sys/policy/p', []],
    ['unknown path', 'PUT', '/v1/nope/x', [TOKEN]],
    ['wrap requested', 'PUT', '/v1/sys/policy/p', [TOKEN, 'X-Vault-Wrap-TTL: 5m']],
    ['bad percent-encoding', 'PUT', '/v1/sys/policy/%ff', [TOKEN]],
    ['unknown method', 'FROB', '/v1/sys/policy/p', [TOKEN]],
  ])('a chunked body refused before it is read (%s) is drained and the connection kept', async (_l, method, path, lines) => {
    const b = JSON.stringify({ policy: 'x'.repeat(100_000) });
    const c = await RawConnection.open(engine.url);
    await c.write(head(method, path, [...lines, 'Transfer-Encoding: chunked']) + `${b.length.toString(16)}\r\n${b}\r\n0\r\n\r\n` + health);
    const a = await c.response(3000);
    expect(a.status).toBeGreaterThanOrEqual(400);
    expect(envelope(a.body).errors?.length).toBe(1);
    expect((await c.response(3000)).status).toBe(200);
    c.close();
  });

  it('Expect: 100-continue with a refused body: the refusal, then the next request', async () => {
    const b = JSON.stringify({ policy: 'x'.repeat(50_000) });
    const c = await RawConnection.open(engine.url);
    await c.write(head('PUT', '/v1/sys/policy/p', ['Expect: 100-continue', `Content-Length: ${b.length}`]));
    await c.write(b + health);
    expect((await c.response(3000)).status).toBe(403);
    expect((await c.response(3000)).status).toBe(200);
    c.close();
  });

  it.each(['activecode=204', 'activecode=304'])('sys/health?%s: no body and no length, so the next response is framed right', async (q) => {
    for (const method of ['GET', 'HEAD']) {
      const c = await RawConnection.open(engine.url);
      await c.write(head(method, `/v1/sys/health?${q}`) + health);
      const a = await c.response(3000, true);
      expect(a.status).toBe(Number(q.slice(-3)));
      expect(a.headers['content-length'] ?? '0').toBe('0');
      const b = await c.response(3000);
      expect(b.status).toBe(200);
      expect(JSON.parse(b.body).initialized).toBe(true);
      c.close();
    }
  });

  it('HEAD sys/health with a bad code parameter: 400 without a body, connection usable', async () => {
    const c = await RawConnection.open(engine.url);
    await c.write(head('HEAD', '/v1/sys/health?standbycode=abc') + health);
    expect((await c.response(3000, true)).status).toBe(400);
    expect((await c.response(3000)).status).toBe(200);
    c.close();
  });

  it.each(['sys/policy/a%2', 'auth/%ff/login', 'auth/token/lookup%', 'sys/mounts/%ed%a0%80', 'identity/entity/id/%ff', 'sys/namespaces/%c0%af'])(
    'malformed percent-encoding in %s is 400 for every method',
    async (path) => {
      for (const method of ['GET', 'POST', 'DELETE']) {
        const r = await api(engine, method, path, method === 'POST' ? { body: {} } : {});
        expect(r.status).toBe(400);
        expect(r.body.errors[0]).toMatch(/percent-encoding/);
      }
    },
  );

  it.each([
    ['auth/token/create', (n: string) => `{"meta": {"a": ${n}}}`],
    ['auth/token/create', (n: string) => `{"policies": [${n}]}`],
    ['sys/policy/deep', (n: string) => `{"policy": ${n}}`],
    ['sys/auth/deep', (n: string) => `{"type": "static", "config": {"default_lease_ttl": ${n}}}`],
    ['auth/token/lookup', (n: string) => `{"token": ${n}}`],
  ])('deep nesting in %s is a 400 naming the problem, whatever the container', async (path, wrap) => {
    for (const n of [`${'{"a":'.repeat(2500)}1${'}'.repeat(2500)}`, `${'['.repeat(5000)}${']'.repeat(5000)}`, `${'[{"a":'.repeat(40)}1${'}]'.repeat(40)}`]) {
      const r = await api(engine, 'POST', path, { rawBody: wrap(n) });
      expect(r.status).toBe(400);
      expect(r.body.errors.length).toBe(1);
    }
  });

  it('X-Vault-Wrap-TTL is refused on every kind of route, with or without X-Vault-Wrap-Format', async () => {
    for (const path of ['sys/health', 'auth/token/lookup-self', 'sys/policy', 'sys/storage/raft/snapshot', 'sys/auth']) {
      for (const headers of [{ 'x-vault-wrap-ttl': '60' }, { 'x-vault-wrap-ttl': '1m', 'x-vault-wrap-format': 'jwt' }] as Record<string, string>[]) {
        const r = await api(engine, 'GET', path, { headers });
        expect(r.status).toBe(400);
        expect(r.body.errors[0]).toMatch(/response wrapping is not supported/);
      }
    }
  });

  it.each(['identity', 'gzip', 'chunked, identity'])('Transfer-Encoding: %s (no framing Node accepts) is refused at once, never a hang', async (te) => {
    const c = await RawConnection.open(engine.url);
    await c.write(head('POST', '/v1/sys/policy/te', [TOKEN, `Transfer-Encoding: ${te}`]) + '{"policy": ""}');
    const r = await c.response(3000);
    expect(r.status).toBe(400);
    expect(envelope(r.body).errors).toEqual(['malformed HTTP request']);
    expect(await c.closedByServer()).toBe(true);
  });

  it("repeated X-Vault-Namespace (like X-Vault-Token) uses the first value, as Go's Header.Get", async () => {
    await api(engine, 'POST', 'sys/namespaces/first');
    await api(engine, 'PUT', 'sys/policy/only-in-first', { namespace: 'first', body: { policy: 'path "x" { capabilities = ["read"] }' } });
    const c = await RawConnection.open(engine.url);
    await c.write(head('GET', '/v1/sys/policy/only-in-first', [TOKEN, 'X-Vault-Namespace: first', 'X-Vault-Namespace: elsewhere']));
    const r = await c.response(3000);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).name).toBe('only-in-first');
    c.close();
  });

  it('an empty X-Vault-Wrap-TTL asks for no wrapping (Vault ignores it); any value is refused', async () => {
    const c = await RawConnection.open(engine.url);
    await c.write(head('GET', '/v1/sys/policy/default', [TOKEN, 'X-Vault-Wrap-TTL: ']));
    expect((await c.response(3000)).status).toBe(200);
    await c.write(head('GET', '/v1/sys/policy/default', [TOKEN, 'X-Vault-Wrap-TTL: ', 'X-Vault-Wrap-TTL: 5m']));
    expect((await c.response(3000)).status).toBe(200); // the first value counts, as in Vault
    await c.write(head('GET', '/v1/sys/policy/default', [TOKEN, 'X-Vault-Wrap-TTL: 0s']));
    expect((await c.response(3000)).status).toBe(400);
    c.close();
  });

  it('bare-LF line endings (RFC 9112 2.2, accepted by Go and so by Vault), LIST and chunked included, whole or byte by byte', async () => {
    const body = JSON.stringify({ policy: 'path "lf" { capabilities = ["read"] }' });
    const text =
      `LIST /v1/sys/policies/acl HTTP/1.1\nHost: x\n${TOKEN}\n\n` +
      `POST /v1/sys/policy/lf HTTP/1.1\nHost: x\n${TOKEN}\nTransfer-Encoding: chunked\n\n` +
      `${body.length.toString(16)}\n${body}\n0\n\n` +
      `GET /v1/sys/policy/lf HTTP/1.1\nHost: x\n${TOKEN}\n\n`;
    for (const bytewise of [false, true]) {
      const c = await RawConnection.open(engine.url);
      if (bytewise) for (const ch of text) await c.write(ch);
      else await c.write(text);
      expect((await c.response(3000)).status).toBe(200);
      expect((await c.response(3000)).status).toBe(204);
      const third = await c.response(3000);
      expect(JSON.parse(third.body).name).toBe('lf');
      c.close();
    }
  });

  it('pipelined requests run in order: a write then a read on one connection sees the write', async () => {
    const body = JSON.stringify({ policy: 'path "seq" { capabilities = ["read"] }' });
    const c = await RawConnection.open(engine.url);
    let text = '';
    for (let i = 0; i < 10; i++) {
      text += head('PUT', `/v1/sys/policy/seq${i}`, [TOKEN, `Content-Length: ${body.length}`]) + body + head('GET', `/v1/sys/policy/seq${i}`, [TOKEN]);
      text += head('DELETE', `/v1/sys/policy/seq${i}`, [TOKEN]) + head('GET', `/v1/sys/policy/seq${i}`, [TOKEN]);
    }
    await c.write(text);
    for (let i = 0; i < 10; i++) {
      expect((await c.response(3000)).status).toBe(204);
      expect(JSON.parse((await c.response(3000)).body).name).toBe(`seq${i}`);
      expect((await c.response(3000)).status).toBe(204);
      expect((await c.response(3000)).status).toBe(404);
    }
    c.close();
  });

  it('a 413 (body over the limit, declared or chunked) keeps the connection when the rest can be drained', async () => {
    const big = JSON.stringify({ policy: 'x'.repeat(2 * 1024 * 1024) });
    for (const framing of ['length', 'chunked']) {
      const c = await RawConnection.open(engine.url);
      const lines = framing === 'length' ? [TOKEN, `Content-Length: ${big.length}`] : [TOKEN, 'Transfer-Encoding: chunked'];
      const payload = framing === 'length' ? big : `${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`;
      await c.write(head('PUT', '/v1/sys/policy/huge', lines) + payload + health);
      const r = await c.response(5000);
      expect(r.status).toBe(413);
      expect(envelope(r.body).errors?.[0]).toMatch(/request body too large/);
      expect((await c.response(5000)).status).toBe(200);
      c.close();
    }
  });
});
