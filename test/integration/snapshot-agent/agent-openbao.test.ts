// The same stack against the contract server in OpenBao mode: detected from sys/health (no
// `enterprise` field, version 2.x), Vault's names; the auth mount is created with the plugin name
// the operator registered; snapshot configs go through the agent (which takes the server's raft
// snapshot on schedule); without an agent the plan fails naming `keyward snapshot-agent`.

import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../src/engine/clock';
import { startSnapshotAgent, type SnapshotAgent } from '../../../src/snapshot-agent/agent';
import { runKeyward } from '../../support/keyward-in-process';
import { api } from '../../support/engine';
import { CONTRACT_TOKEN, startVaultContract, type VaultContract } from '../../support/vault-contract/server';
import { raftSnapshot } from '../../support/vault-contract/community';
import { iamRole, manifest, serviceAccountKey } from '../reconcile/helpers';

const PLUGIN = 'vault-plugin-auth-gcp';
let bao: VaultContract;
let agent: SnapshotAgent;
let dir: string;
const clock = new ManualClock(Date.UTC(2026, 0, 1));
const saved = { ...process.env };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kw-agent-bao-'));
  bao = await startVaultContract({ flavor: 'openbao', gcpPluginName: PLUGIN });
  agent = await startSnapshotAgent({ server: bao.url, listen: '127.0.0.1:0', state: join(dir, 'state'), env: { VAULT_TOKEN: CONTRACT_TOKEN }, clock });
});
afterAll(async () => {
  process.env = saved;
  await agent.close();
  await bao.close();
  rmSync(dir, { recursive: true, force: true });
});

function stack(snapshotAddress?: string) {
  return manifest({
    server: { cloudPlugin: PLUGIN, ...(snapshotAddress ? { snapshotAddress } : {}) },
    authBackends: [{ path: 'gcp-prod', type: 'cloud', config: { credentials: { secretRef: { env: 'CLOUD_CREDS' } } }, roles: [iamRole('web')] }],
    snapshotConfigs: [{ name: 'hourly', storage_type: 'local', interval: '1h', retain: 3, path_prefix: join(dir, 'snaps'), file_prefix: 'bao', local_max_space: 100_000_000 }],
  });
}

beforeEach(() => {
  process.env.VAULT_ADDR = bao.url;
  process.env.VAULT_TOKEN = CONTRACT_TOKEN;
  process.env.CLOUD_CREDS = serviceAccountKey('bao-1');
  delete process.env.KEYWARD_SNAPSHOT_ADDR;
  delete process.env.KEYWARD_CLOUD_PLUGIN;
  delete process.env.KEYWARD_DIALECT;
});

test("the agent sees OpenBao and speaks Vault's names", async () => {
  expect(agent.info).toMatchObject({ dialect: 'vault', version: '2.2.0', openbao: true });
  const health = await api(agent.url, 'GET', 'sys/health', { token: null });
  expect(health.body.enterprise).toBeUndefined();
  expect(health.body.keyward_snapshot_agent).toBe(true);
  // A keyward-named storage type is refused in Vault's words; Vault's is taken.
  const bad = await api(agent.url, 'POST', 'sys/storage/raft/snapshot-auto/config/x', {
    token: CONTRACT_TOKEN,
    body: { storage_type: 'aws-s3', interval: '1h', path_prefix: 'p' },
  });
  expect(bad.status).toBe(400);
  expect(bad.body.errors.join('\n')).toMatch(/aws_s3_bucket/);
  expect(bad.body.errors.join('\n')).not.toMatch(/cloudone/);
});

test('without an agent: plan fails at plan time naming OpenBao and keyward snapshot-agent', async () => {
  const file = join(dir, 'plain.json');
  writeFileSync(file, JSON.stringify(stack()));
  const r = await runKeyward('plan', '--manifest', file);
  expect(r.code).toBe(1);
  expect(r.err).toMatch(/OpenBao 2\.2\.0.*keyward snapshot-agent --server/s);
  expect(bao.mounts.has('gcp-prod')).toBe(false);
});

test('with the agent: auth mount of the registered plugin on the server, configs on the agent, snapshots taken, re-plan empty', async () => {
  const file = join(dir, 'agent.json');
  writeFileSync(file, JSON.stringify(stack(agent.url)));
  const applied = await runKeyward('apply', '--manifest', file, '--auto-approve');
  expect(applied.err).toBe('');
  expect(applied.code).toBe(0);
  expect(bao.mounts.get('gcp-prod')?.type).toBe(PLUGIN);
  expect(bao.snapshots.size).toBe(0);
  expect((await api(agent.url, 'GET', 'sys/storage/raft/snapshot-auto/config/hourly', { token: CONTRACT_TOKEN })).body.data).toMatchObject({
    storage_type: 'local',
    interval: 3600,
    retain: 3,
    file_prefix: 'bao',
  });
  expect((await runKeyward('plan', '--manifest', file, '--detailed-exitcode')).code).toBe(0);
  for (let i = 0; i < 4; i++) {
    await clock.advance(3600_000);
    await agent.scheduler.settled();
  }
  const taken = readdirSync(join(dir, 'snaps')).filter((n) => /^bao-\d+\.snap$/.test(n));
  expect(taken).toHaveLength(3);
  const status = (await api(agent.url, 'GET', 'sys/storage/raft/snapshot-auto/status/hourly', { token: CONTRACT_TOKEN })).body.data;
  expect(status).toMatchObject({ consecutive_errors: 0, last_snapshot_error: '' });
  expect(agent.archivesRead()).toBe(4);
  expect(raftSnapshot().length).toBeGreaterThan(0);
  expect(bao.problems).toEqual([]);
});
