// The agent's metrics (issue 42): GET /v1/sys/metrics?format=prometheus, per config with a `config`
// label; failed attempts counted, staleness after two intervals without a verified snapshot and
// recovery with the next one (on a manual clock); token-checked against the managed server with a
// brief cache, or open with --unauthenticated-metrics-access.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../src/engine/clock';
import { startSnapshotAgent, type SnapshotAgent, type SnapshotAgentOptions } from '../../../src/snapshot-agent/agent';
import { api } from '../../support/engine';
import { CONTRACT_TOKEN, startVaultContract, type VaultContract } from '../../support/vault-contract/server';

const T0 = Date.UTC(2026, 0, 1);
let bao: VaultContract;
let dir: string;
let clock: ManualClock;
const agents: SnapshotAgent[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kw-agent-metrics-'));
  clock = new ManualClock(T0);
  bao = await startVaultContract({ flavor: 'openbao' });
});
afterEach(async () => {
  for (const a of agents.splice(0)) await a.close();
  await bao.close();
  rmSync(dir, { recursive: true, force: true });
});

async function agent(o: Partial<SnapshotAgentOptions> = {}): Promise<SnapshotAgent> {
  const a = await startSnapshotAgent({ server: bao.url, listen: '127.0.0.1:0', state: join(dir, 'state'), env: { VAULT_TOKEN: CONTRACT_TOKEN }, clock, ...o });
  agents.push(a);
  const body = { storage_type: 'local', interval: 60, retain: 5, path_prefix: join(dir, 'snaps'), file_prefix: 'bao', local_max_space: 100_000_000 };
  expect((await api(a.url, 'POST', 'sys/storage/raft/snapshot-auto/config/hourly', { token: CONTRACT_TOKEN, body })).status).toBe(204);
  return a;
}

async function scrape(a: SnapshotAgent, headers: Record<string, string> = { 'x-vault-token': CONTRACT_TOKEN }) {
  const res = await fetch(`${a.url}/v1/sys/metrics?format=prometheus`, { headers });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}
const figure = (text: string, name: string) => Number(new RegExp(`^${name}\\{config="hourly"\\} (\\S+)$`, 'm').exec(text)?.[1]);
const interval = async (a: SnapshotAgent) => {
  await clock.advance(60_000);
  await a.scheduler.settled();
};

test('errors are counted, the config turns stale after two intervals without a verified snapshot and recovers with the next one', async () => {
  const a = await agent();
  await interval(a);
  let m = await scrape(a);
  expect(m.status).toBe(200);
  expect(m.type).toMatch(/^text\/plain; version=0\.0\.4/);
  expect(m.text).toContain('# TYPE keyward_snapshot_stale gauge');
  expect(figure(m.text, 'keyward_snapshot_last_success_timestamp_seconds')).toBe((T0 + 60_000) / 1000);
  expect(figure(m.text, 'keyward_snapshot_last_size_bytes')).toBeGreaterThan(10_000);
  expect(figure(m.text, 'keyward_snapshot_consecutive_errors')).toBe(0);
  expect(figure(m.text, 'keyward_snapshot_stale')).toBe(0);

  bao.community.snapshot = 'cut';
  await interval(a);
  await interval(a);
  m = await scrape(a);
  expect(figure(m.text, 'keyward_snapshot_consecutive_errors')).toBe(2);
  expect(figure(m.text, 'keyward_snapshot_stale')).toBe(0); // exactly two intervals: not yet
  await interval(a);
  m = await scrape(a);
  expect(figure(m.text, 'keyward_snapshot_consecutive_errors')).toBe(3);
  expect(figure(m.text, 'keyward_snapshot_stale')).toBe(1);
  expect(figure(m.text, 'keyward_snapshot_last_success_timestamp_seconds')).toBe((T0 + 60_000) / 1000);

  bao.community.snapshot = 'complete';
  await interval(a);
  m = await scrape(a);
  expect(figure(m.text, 'keyward_snapshot_stale')).toBe(0);
  expect(figure(m.text, 'keyward_snapshot_consecutive_errors')).toBe(0);
  expect(figure(m.text, 'keyward_snapshot_last_success_timestamp_seconds')).toBe((T0 + 300_000) / 1000);
});

test('token-checked against the managed server, the check and answer cached a few seconds; open with --unauthenticated-metrics-access', async () => {
  const a = await agent();
  expect((await scrape(a, {})).status).toBe(403);
  expect((await scrape(a, { 'x-vault-token': 'not-a-token' })).status).toBe(403);
  const checks = () => bao.requests.filter((r) => r.path.includes('sys/capabilities-self')).length;
  const before = checks();
  expect((await scrape(a)).status).toBe(200);
  expect((await scrape(a, { authorization: `Bearer ${CONTRACT_TOKEN}` })).status).toBe(200);
  expect(checks()).toBe(before + 1);
  await clock.advance(5_000);
  expect((await scrape(a)).status).toBe(200);
  expect(checks()).toBe(before + 2);
  expect((await fetch(`${a.url}/v1/sys/metrics`, { headers: { 'x-vault-token': CONTRACT_TOKEN } })).status).toBe(400);

  const open = await agent({ unauthenticatedMetricsAccess: true });
  const m = await scrape(open, {});
  expect(m.status).toBe(200);
  expect(m.text).toMatch(/^keyward_snapshot_stale\{config="hourly"\} 0$/m);
});
