// Only complete snapshots (issue 39's critical finding, issue 42): the managed server's 200 is not
// proof of an archive. A body cut after the 200 and a complete gzip tar without SHA256SUMS.sealed are
// the attempt's error (counted, nothing stored), and retention never rotates a good snapshot away for
// them. The server is the contract server in OpenBao mode streaming a real OpenBao 2.7.2 archive.

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../src/engine/clock';
import { startSnapshotAgent, type SnapshotAgent } from '../../../src/snapshot-agent/agent';
import { api } from '../../support/engine';
import { runKeyward } from '../../support/keyward-in-process';
import { CONTRACT_TOKEN, startVaultContract, type VaultContract } from '../../support/vault-contract/server';

const T0 = Date.UTC(2026, 0, 1);
let bao: VaultContract;
let agent: SnapshotAgent;
let dir: string;
let clock: ManualClock;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kw-agent-verify-'));
  clock = new ManualClock(T0);
  bao = await startVaultContract({ flavor: 'openbao' });
  agent = await startSnapshotAgent({ server: bao.url, listen: '127.0.0.1:0', state: join(dir, 'state'), env: { VAULT_TOKEN: CONTRACT_TOKEN }, clock });
});
afterEach(async () => {
  await agent.close();
  await bao.close();
  rmSync(dir, { recursive: true, force: true });
});

const snaps = () =>
  readdirSync(join(dir, 'snaps'))
    .filter((n) => /^bao-\d+\.snap$/.test(n))
    .sort();
const name = (s: number) => `bao-${BigInt(T0 + s * 1000) * 1_000_000n}.snap`;
const status = async () => (await api(agent.url, 'GET', 'sys/storage/raft/snapshot-auto/status/hourly', { token: CONTRACT_TOKEN })).body.data;
const interval = async () => {
  await clock.advance(60_000);
  await agent.scheduler.settled();
};

test('a body cut after the 200 and an archive without SHA256SUMS.sealed are errors, and retention keeps every good snapshot', async () => {
  const body = { storage_type: 'local', interval: 60, retain: 2, path_prefix: join(dir, 'snaps'), file_prefix: 'bao', local_max_space: 100_000_000 };
  expect((await api(agent.url, 'POST', 'sys/storage/raft/snapshot-auto/config/hourly', { token: CONTRACT_TOKEN, body })).status).toBe(204);
  await interval();
  await interval();
  expect(snaps()).toEqual([name(60), name(120)]);
  expect(await status()).toMatchObject({ consecutive_errors: 0, last_snapshot_error: '' });

  bao.community.snapshot = 'cut';
  await interval();
  let s = await status();
  expect(s.consecutive_errors).toBe(1);
  expect(s.last_snapshot_error).toMatch(/failed verification: the gzip stream is incomplete/);
  expect(s.last_snapshot_url).toBe('');
  expect(snaps()).toEqual([name(60), name(120)]);

  bao.community.snapshot = 'unsealed';
  await interval();
  s = await status();
  expect(s.consecutive_errors).toBe(2);
  expect(s.last_snapshot_error).toMatch(/failed verification: incomplete snapshot: no SHA256SUMS\.sealed/);
  expect(snaps()).toEqual([name(60), name(120)]);

  bao.community.snapshot = 'complete';
  await interval();
  expect(await status()).toMatchObject({ consecutive_errors: 0, last_snapshot_error: '' });
  expect(snaps()).toEqual([name(120), name(300)]);
  expect(agent.archivesRead()).toBe(5);
  // What the agent stored passes `keyward snapshot verify` at the URL its status shows.
  const stored = await runKeyward('snapshot', 'verify', (await status()).last_snapshot_url);
  expect(stored.out).toMatch(/verified: file:\/\/.*bao-\d+\.snap is a Vault\/OpenBao raft snapshot, complete/);
  expect(stored.code).toBe(0);
});
