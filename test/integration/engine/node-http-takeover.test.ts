// Native parsing by default, and the move onto the framing front (connection-front.ts), checked
// on the running Node: CI runs this on every supported version, so a Node that reads sockets or
// reports refusals differently fails here, loudly, instead of in production.
// `parser._consumed` is Node's internal mark of a socket read by its parser natively (no 'data'
// events in JavaScript): the test reads it to prove the fast path is taken.

import type { IncomingMessage } from 'node:http';
import { FramedConnection } from '../../../src/engine/node-adapter/framed-connection';
import type { Engine } from '../../../src/engine/engine';
import { startTestEngine, ROOT_TOKEN } from '../../support/engine';
import { connect } from 'node:net';
import { RawConnection, head } from '../../support/raw-http';

let engine: Engine;
const seen: { method: string; framed: boolean; native: boolean }[] = [];
const onRequest = (req: IncomingMessage) => {
  const socket = req.socket as IncomingMessage['socket'] & { parser?: { _consumed?: boolean } };
  seen.push({ method: req.method ?? '', framed: socket instanceof FramedConnection, native: socket.parser?._consumed === true });
};
beforeAll(async () => {
  engine = await startTestEngine();
  engine.server.prependListener('request', onRequest);
});
afterAll(() => engine.close());
beforeEach(() => void (seen.length = 0));

const TOKEN = `X-Vault-Token: ${ROOT_TOKEN}`;
const health = head('GET', '/v1/sys/health');

it('a connection that sends only methods Node knows is read by Node natively, request after request', async () => {
  const c = await RawConnection.open(engine.url);
  await c.write(health + health);
  expect((await c.response(3000)).status).toBe(200);
  expect((await c.response(3000)).status).toBe(200);
  await c.write(head('GET', '/v1/sys/policies/acl?list=true', [TOKEN]));
  expect((await c.response(3000)).status).toBe(200);
  c.close();
  expect(seen).toEqual([
    { method: 'GET', framed: false, native: true },
    { method: 'GET', framed: false, native: true },
    { method: 'GET', framed: false, native: true },
  ]);
});

it('the first LIST moves the connection onto the framing front; answers stay in order', async () => {
  const c = await RawConnection.open(engine.url);
  // Pipelined in one read: two GETs answered natively, then the LIST and a GET through the front.
  await c.write(health + health + head('LIST', '/v1/sys/policies/acl', [TOKEN]) + health);
  const statuses: number[] = [];
  const bodies: string[] = [];
  for (let i = 0; i < 4; i++) {
    const r = await c.response(3000);
    statuses.push(r.status);
    bodies.push(r.body);
  }
  expect(statuses).toEqual([200, 200, 200, 200]);
  expect(JSON.parse(bodies[2]).data.keys).toContain('default');
  await c.write(head('LIST', '/v1/sys/policies/acl', [TOKEN]));
  expect((await c.response(3000)).status).toBe(200);
  c.close();
  expect(seen.map((s) => [s.method, s.framed])).toEqual([
    ['GET', false],
    ['GET', false],
    ['LINK', true], // the front's placeholder; the adapter restores LIST
    ['GET', true],
    ['LINK', true],
  ]);
});

it("a framed connection keeps Node's keep-alive timeout", async () => {
  const before = engine.server.keepAliveTimeout;
  engine.server.keepAliveTimeout = 300;
  try {
    const c = await RawConnection.open(engine.url);
    await c.write(head('LIST', '/v1/sys/policies/acl', [TOKEN]));
    expect((await c.response(3000)).status).toBe(200);
    expect(await c.closedByServer(3000)).toBe(true);
  } finally {
    engine.server.keepAliveTimeout = before;
  }
});

it('a client that resets while a LIST waits behind a long answer breaks nothing', async () => {
  // A snapshot larger than the socket buffers, not read by the client: its answer cannot finish,
  // so the LIST pipelined behind it waits on the framing front when the client resets.
  const big = 'x'.repeat(900 * 1024);
  for (let i = 0; i < 8; i++) {
    const r = await fetch(`${engine.url}/v1/sys/policy/big-${i}`, {
      method: 'PUT',
      headers: { 'x-vault-token': ROOT_TOKEN },
      body: JSON.stringify({ policy: `# ${big}\npath "x/${i}" { capabilities = ["read"] }` }),
    });
    expect(r.status).toBe(204);
  }
  const { hostname, port } = new URL(engine.url);
  const s = connect(Number(port), hostname);
  s.on('error', () => undefined);
  await new Promise((r) => s.once('connect', r));
  s.pause();
  s.write(head('GET', '/v1/sys/storage/raft/snapshot', [TOKEN]) + head('LIST', '/v1/sys/policies/acl', [TOKEN]));
  await new Promise((r) => setTimeout(r, 500));
  s.resetAndDestroy();
  await new Promise((r) => setTimeout(r, 500));
  expect((await fetch(`${engine.url}/v1/sys/health`)).status).toBe(200);
  for (let i = 0; i < 8; i++) await fetch(`${engine.url}/v1/sys/policy/big-${i}`, { method: 'DELETE', headers: { 'x-vault-token': ROOT_TOKEN } });
});
