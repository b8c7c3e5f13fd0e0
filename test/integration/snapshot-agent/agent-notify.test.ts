// --notify-url (issue 42): a JSON POST on a failed attempt, on recovery and once when a config turns
// stale, with the config, server, time and error and never a token; retried with backoff without
// holding the schedule; with two agents on one state each event arrives once.

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../src/engine/clock';
import { startSnapshotAgent, type SnapshotAgent } from '../../../src/snapshot-agent/agent';
import type { Notification } from '../../../src/snapshot-agent/notifier';
import { api } from '../../support/engine';
import { CONTRACT_TOKEN, startVaultContract, type VaultContract } from '../../support/vault-contract/server';

const T0 = Date.UTC(2026, 0, 1);
let bao: VaultContract;
let dir: string;
let clock: ManualClock;
let receiver: Server;
let receiverUrl: string;
const received: Notification[] = [];
let refuseNext = 0;
const agents: SnapshotAgent[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kw-agent-notify-'));
  clock = new ManualClock(T0);
  bao = await startVaultContract({ flavor: 'openbao' });
  received.length = 0;
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += String(c)));
    req.on('end', () => {
      if (refuseNext > 0) {
        refuseNext--;
        return void res.writeHead(503).end();
      }
      received.push(JSON.parse(body) as Notification);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterEach(async () => {
  for (const a of agents.splice(0)) await a.close();
  await bao.close();
  receiver.closeAllConnections();
  await new Promise<void>((r) => receiver.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

const start = async () => {
  const a = await startSnapshotAgent({
    server: bao.url,
    listen: '127.0.0.1:0',
    state: join(dir, 'state'),
    env: { VAULT_TOKEN: CONTRACT_TOKEN },
    clock,
    pollMs: 1_000,
    notifyUrls: [receiverUrl],
  });
  agents.push(a);
  return a;
};
const step = async (ms: number) => {
  for (let left = ms; left > 0; left -= 1_000) {
    await clock.advance(1_000);
    for (const a of agents) {
      await a.scheduler.settled();
      await a.notificationsIdle().catch(() => undefined);
    }
  }
};

test('failed, stale once, recovered: each event once from two agents on one state, retried through a refusing receiver, no token', async () => {
  const a = await start();
  await start();
  const body = { storage_type: 'local', interval: 60, retain: 5, path_prefix: join(dir, 'snaps'), file_prefix: 'bao', local_max_space: 100_000_000 };
  expect((await api(a.url, 'POST', 'sys/storage/raft/snapshot-auto/config/hourly', { token: CONTRACT_TOKEN, body })).status).toBe(204);
  await step(60_000);
  expect(received).toEqual([]); // a success after a success says nothing

  bao.community.snapshot = 'cut';
  refuseNext = 2; // the first failure notice is refused twice, then delivered (backoff 1 s, 2 s)
  await step(60_000);
  await step(5_000);
  expect(received.map((n) => n.event)).toEqual(['snapshot_failed']);
  expect(refuseNext).toBe(0); // delivered on the third try
  expect(received[0]).toMatchObject({ config: 'hourly', server: bao.url, time: '2026-01-01T00:02:00Z', consecutive_errors: 1 });
  expect(received[0].error).toMatch(/failed verification: the gzip stream is incomplete/);
  expect(received[0].last_good_snapshot_url).toMatch(/bao-\d+\.snap$/);
  expect(received[0].agent).toMatch(/.+/);

  await step(55_000 + 60_000); // failures at 3 and 4 min; at 4 min the last good (1 min) is more than two intervals old
  expect(received.map((n) => n.event)).toEqual(['snapshot_failed', 'snapshot_failed', 'snapshot_failed', 'snapshot_stale']);
  expect(received[3].text).toMatch(/snapshots of hourly are STALE/);
  await step(60_000);
  expect(received.map((n) => n.event)).toEqual(['snapshot_failed', 'snapshot_failed', 'snapshot_failed', 'snapshot_stale', 'snapshot_failed']); // stale once per spell

  bao.community.snapshot = 'complete';
  await step(60_000);
  expect(received.map((n) => n.event).slice(-1)).toEqual(['snapshot_recovered']);
  expect(received.filter((n) => n.event === 'snapshot_recovered')).toHaveLength(1);
  expect(JSON.stringify(received)).not.toContain(CONTRACT_TOKEN);
});
