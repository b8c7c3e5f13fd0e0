// `keyward status` through a snapshot agent (issue 42): after a failed attempt the last verified
// snapshot's URL is still shown beside the error, and a stale config makes the exit code 3
// (distinct from 1, an error) until the next verified snapshot.

import { mkdtempSync, rmSync } from 'node:fs';
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
const saved = { ...process.env };

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kw-agent-status-'));
  clock = new ManualClock(T0);
  bao = await startVaultContract({ flavor: 'openbao' });
  agent = await startSnapshotAgent({ server: bao.url, listen: '127.0.0.1:0', state: join(dir, 'state'), env: { VAULT_TOKEN: CONTRACT_TOKEN }, clock });
  process.env.VAULT_TOKEN = CONTRACT_TOKEN;
});
afterEach(async () => {
  process.env = { ...saved };
  await agent.close();
  await bao.close();
  rmSync(dir, { recursive: true, force: true });
});

const interval = async () => {
  await clock.advance(60_000);
  await agent.scheduler.settled();
};
const status = (...extra: string[]) => runKeyward('status', '--address', bao.url, '--snapshot-address', agent.url, ...extra);

test('the last good snapshot stays beside the last error, and a stale config exits 3 until it recovers', async () => {
  const body = { storage_type: 'local', interval: 60, retain: 5, path_prefix: join(dir, 'snaps'), file_prefix: 'bao', local_max_space: 100_000_000 };
  expect((await api(agent.url, 'POST', 'sys/storage/raft/snapshot-auto/config/hourly', { token: CONTRACT_TOKEN, body })).status).toBe(204);
  await interval();
  const good = `file://${join(dir, 'snaps')}/bao-${BigInt(T0 + 60_000) * 1_000_000n}.snap`;
  bao.community.snapshot = 'unsealed';
  await interval();
  let r = await status('--json');
  expect(r.code).toBe(0);
  let row = JSON.parse(r.out).snapshots[0];
  expect(row).toMatchObject({
    name: 'hourly',
    consecutive_errors: 1,
    last_snapshot_url: '',
    last_good_snapshot_url: good,
    last_good_snapshot_end: '2026-01-01T00:01:00Z',
    stale: false,
  });
  expect(row.last_snapshot_error).toMatch(/no SHA256SUMS\.sealed/);
  await interval();
  await interval();
  r = await status();
  expect(r.code).toBe(3);
  expect(r.out).toMatch(/^NAME +TYPE +LAST SNAPSHOT +NEXT SNAPSHOT +ERRORS +STALE +LAST ERROR +URL +LAST GOOD$/m);
  expect(r.out).toMatch(new RegExp(`^hourly +local .* 3 +STALE +reading the snapshot .* +- +${good.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(2026-01-01T00:01:00Z\\)$`, 'm'));
  bao.community.snapshot = 'complete';
  await interval();
  r = await status('--json');
  expect(r.code).toBe(0);
  row = JSON.parse(r.out).snapshots[0];
  expect(row).toMatchObject({ consecutive_errors: 0, stale: false, last_good_snapshot_url: row.last_snapshot_url });
});
