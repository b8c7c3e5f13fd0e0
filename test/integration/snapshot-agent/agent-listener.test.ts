// The agent's listener is the engine's: a request head must arrive within 10 s and the whole
// request within 30 s (Vault's http_read_header_timeout and http_read_timeout), answered 408, and
// connections beyond the cap are closed on arrival. Before, the agent kept Node's defaults (a
// never-ending head held about a minute, no cap).

import { connect } from 'node:net';
import { startAgentHarness, type AgentHarness } from '../../support/snapshot-agent';
import { sendAndWait } from '../../support/raw-http';

let h: AgentHarness;
beforeEach(async () => {
  h = await startAgentHarness();
});
afterEach(async () => {
  await h.close();
});

it('answers a head that never ends with 408 at the default 10 s', async () => {
  const a = await h.agent();
  const started = Date.now();
  const got = await sendAndWait(a.url, 'GET /v1/sys/health HTTP/1.1\r\nHost: x\r\n', 14_000);
  expect(got).toMatch(/^HTTP\/1\.1 408/);
  expect(Date.now() - started).toBeGreaterThanOrEqual(9_000);
}, 20_000);

it('takes the engine listener settings: head and request timeouts, connection cap', async () => {
  const a = await h.agent({ listener: { readHeaderTimeoutMs: 300, readTimeoutMs: 800, maxConnections: 2 } });
  expect(await sendAndWait(a.url, 'GET /v1/sys/health HTTP/1.1\r\nHost: x\r\n', 5000)).toMatch(/^HTTP\/1\.1 408/);
  const slowBody = await sendAndWait(a.url, 'POST /v1/sys/storage/raft/snapshot-auto/config/x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{', 5000);
  expect(slowBody).not.toMatch(/\(open\)$/);
  expect(slowBody).not.toMatch(/^HTTP\/1\.1 20/);
  const port = Number(new URL(a.url).port);
  const held = [connect(port, '127.0.0.1'), connect(port, '127.0.0.1')];
  await new Promise((r) => setTimeout(r, 100));
  expect(await sendAndWait(a.url, 'GET /v1/sys/health HTTP/1.1\r\nHost: x\r\n\r\n', 2000)).toBe('');
  held.forEach((s) => s.destroy());
});
