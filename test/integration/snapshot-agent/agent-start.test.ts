// Start-up beside a server that is not answering yet: the agent waits for the managed server's
// sys/health (connections dropped at first) instead of exiting, then serves; a server that answers
// something that is not Vault's health fails the start at once.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSnapshotAgent } from '../../../src/snapshot-agent/agent';
import { api, ROOT_TOKEN, startTestEngine } from '../../support/engine';
import { forwardingFront, type ForwardingFront } from '../../support/forwarding-front';

/** Drops the first `drops` connections, then forwards to `target`. */
async function flakyFront(target: string, drops: number): Promise<ForwardingFront & { dropped: () => number; dropAll: () => void }> {
  let dropped = 0;
  const front = await forwardingFront(target, (req) => {
    if (dropped >= drops) return false;
    dropped++;
    req.socket.destroy();
    return true;
  });
  return { ...front, dropped: () => dropped, dropAll: () => void (drops = Infinity) };
}

let root: string;
let engine: Awaited<ReturnType<typeof startTestEngine>>;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'kw-agent-start-'));
  engine = await startTestEngine({ edition: 'oss' });
});
afterAll(async () => {
  await engine.close();
  await rm(root, { recursive: true, force: true });
});

it('waits for a managed server that drops connections at first, then serves', async () => {
  // More drops than one client request's retries (3 attempts): the wait loop is what gets through.
  const front = await flakyFront(engine.url, 5);
  const agent = await startSnapshotAgent({ server: front.url, listen: '127.0.0.1:0', state: join(root, 'state'), env: { VAULT_TOKEN: ROOT_TOKEN, VAULT_MAX_RETRIES: '0' } });
  try {
    expect(front.dropped()).toBe(5);
    expect((await api(agent.url, 'GET', 'sys/health', { token: null })).body.keyward_snapshot_agent).toBe(true);
    // The server goes away: a caller is told it could not be checked (503), not refused (403).
    front.dropAll();
    const r = await api(agent.url, 'POST', 'sys/storage/raft/snapshot-auto/config/x', {
      body: { storage_type: 'local', interval: 60, path_prefix: join(root, 'x'), local_max_space: 1e6 },
    });
    expect(r.status).toBe(503);
    expect(r.body.errors[0]).toMatch(/could not check the caller's permissions: the managed server .* did not answer sys\/capabilities-self/);
    expect(r.text).not.toContain(ROOT_TOKEN);
    expect((await api(agent.url, 'GET', 'sys/health', { token: null })).status).toBe(503);
  } finally {
    await agent.close();
    await front.close();
  }
}, 60_000);

it("a server whose health is not Vault's fails the start at once, naming the address", async () => {
  const odd = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  await new Promise<void>((r) => odd.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
  try {
    await expect(startSnapshotAgent({ server: url, listen: '127.0.0.1:0', state: join(root, 'odd'), env: { VAULT_TOKEN: ROOT_TOKEN } })).rejects.toThrow(
      /sys\/health returned no version/,
    );
  } finally {
    odd.closeAllConnections();
    await new Promise<void>((r) => odd.close(() => r()));
  }
});
