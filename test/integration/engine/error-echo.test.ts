// Error answers never carry request bytes or a body they must not have (issue 23): a JSON body
// with a key-shaped value pasted unquoted is refused without quoting any of it, in the answer or
// in the engine's logs at any level; answers to HEAD end after their head, whatever refused them.

import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import type { Engine } from '../../../src/engine/engine';
import { startTestEngine, ROOT_TOKEN } from '../../support/engine';

let engine: Engine;
const logs: string[] = [];
const keep = (level: string) => (msg: string, fields?: unknown) => void logs.push(`${level} ${msg} ${JSON.stringify(fields ?? {})}`);
beforeAll(async () => {
  engine = await startTestEngine({ logLevel: 'debug', logger: { debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error') } });
});
afterAll(() => engine.close());

/** Sends raw bytes on a new connection and returns everything the server sent until it closed. */
async function exchange(text: string | Buffer, timeoutMs = 3000): Promise<string> {
  const { hostname, port } = new URL(engine.url);
  const s = connect(Number(port), hostname);
  const got: Buffer[] = [];
  s.on('data', (d: Buffer) => got.push(d));
  s.on('error', () => undefined);
  s.write(text);
  await new Promise<void>((resolve) => {
    const t = setTimeout(() => {
      s.destroy();
      resolve();
    }, timeoutMs);
    s.on('close', () => {
      clearTimeout(t);
      resolve();
    });
  });
  return Buffer.concat(got).toString('latin1');
}

/** Every 6-character piece of `secret` (any of them in the output would be a leak). */
const pieces = (secret: string) => Array.from({ length: secret.length - 5 }, (_, i) => secret.slice(i, i + 6));

describe('a key pasted unquoted into a JSON body', () => {
  it.each([
    ['auth/token/create', (k: string) => `{"policies": ["default"], "meta": ${k}}`],
    ['sys/policy/leak', (k: string) => `{"policy": ${k}}`],
    ['sys/auth/leak', (k: string) => `{"type": "cloud", "description": ${k}`],
    ['sys/storage/raft/snapshot-auto/config/leak', (k: string) => `{"interval": 60, "storage_type": "local", "credentials": ${k}}`],
  ])('to %s: 400, and neither the answer nor the logs hold any of it', async (path, make) => {
    const key = randomBytes(48)
      .toString('base64')
      .replace(/^[^A-Za-z]/, 'g');
    const body = make(key);
    logs.length = 0;
    const text = await exchange(
      `POST /v1/${path} HTTP/1.1\r\nHost: x\r\nX-Vault-Token: ${ROOT_TOKEN}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    const answer = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { errors: string[] };
    expect(answer.errors[0]).toMatch(/^failed to parse JSON input: /);
    const seen = text + '\n' + logs.join('\n');
    for (const p of pieces(key)) expect(seen).not.toContain(p);
  });
});

describe('answers to HEAD have no body', () => {
  const bigHeader = `X-Big: ${'a'.repeat(20 * 1024)}`;
  it.each([
    ['a framing Node refuses (Transfer-Encoding: identity)', 'HEAD /v1/sys/health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\n\r\n', 400],
    ["a head over Node's size limit", `HEAD /v1/sys/health HTTP/1.1\r\nHost: x\r\n${bigHeader}\r\n\r\n`, 431],
    ['an unsupported HTTP version', 'HEAD /v1/sys/health HTTP/2.0\r\nHost: x\r\n\r\n', 505],
    ['a bad header line', 'HEAD /v1/sys/health HTTP/1.1\r\nHost: x\r\nbad header\r\n\r\n', 400],
    ['a path that does not exist', 'HEAD /v1/nope/nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 0],
    ['a bad parameter', 'HEAD /v1/sys/health?standbycode=x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 400],
    [
      'a refusal after a LIST moved the connection onto the framing front',
      `LIST /v1/sys/policies/acl HTTP/1.1\r\nHost: x\r\nX-Vault-Token: ${ROOT_TOKEN}\r\n\r\nHEAD /v1/sys/health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\n\r\n`,
      400,
    ],
  ])('%s', async (_label, request, status) => {
    const text = await exchange(request);
    // The last answer on the connection is the HEAD's: it must end with its head.
    const last = text.slice(text.lastIndexOf('HTTP/1.1 '));
    if (status) expect(last).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    else expect(last).toMatch(/^HTTP\/1\.1 [45]\d\d /);
    expect(last.endsWith('\r\n\r\n')).toBe(true);
    expect(last.indexOf('\r\n\r\n')).toBe(last.length - 4);
  });
});
