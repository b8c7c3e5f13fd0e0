// The snapshot agent's checks on real OpenBao (issues 39 and 42): the raft snapshots the agent takes
// from a real OpenBao 2.7 node pass the archive verifier and `keyward snapshot verify`; a sealed
// node is not read (the attempt is skipped, with its reason), and the schedule recovers once it is
// unsealed. The agent's token holds only `read` on sys/storage/raft/snapshot (least privilege).

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../src/engine/clock';
import { startSnapshotAgent, type SnapshotAgent } from '../../src/snapshot-agent/agent';
import { runKeyward } from '../support/keyward-in-process';
import { bao, startOpenBaoCluster, type RaftCluster } from '../support/openbao';

let cluster: RaftCluster;
let agent: SnapshotAgent | undefined;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kw-real-agent-verify-'));
  cluster = await startOpenBaoCluster({ size: 1 });
}, 120_000);
afterAll(async () => {
  await agent?.close();
  await cluster?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('real raft snapshots pass the verifier and keyward snapshot verify; a sealed node is skipped, then recovered', async () => {
  const leader = await cluster.leader();
  const root = cluster.rootToken;
  await bao(leader.url, 'PUT', 'sys/policies/acl/snapshot-agent', { token: root, body: { policy: 'path "sys/storage/raft/snapshot" { capabilities = ["read"] }' } });
  const token = (await bao<{ auth: { client_token: string } }>(leader.url, 'POST', 'auth/token/create', { token: root, body: { policies: ['snapshot-agent'], ttl: '24h' } })).auth
    .client_token;
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  agent = await startSnapshotAgent({ server: leader.url, listen: '127.0.0.1:0', state: join(dir, 'state'), env: { VAULT_TOKEN: token }, clock });
  const snaps = join(dir, 'snaps');
  // Configs are written by a caller with the managed server's root token (the agent's own holds only read).
  const res = await fetch(`${agent.url}/v1/sys/storage/raft/snapshot-auto/config/hourly`, {
    method: 'POST',
    headers: { 'x-vault-token': root, 'content-type': 'application/json' },
    body: JSON.stringify({ storage_type: 'local', interval: 60, retain: 5, path_prefix: snaps, file_prefix: 'bao', local_max_space: 1_000_000_000 }),
  });
  expect(res.status).toBe(204);
  const interval = async () => {
    await clock.advance(60_000);
    await agent!.scheduler.settled();
  };

  await interval();
  expect(agent.scheduler.status('hourly')).toMatchObject({ consecutive_errors: 0, last_snapshot_error: '' });
  const url = agent.scheduler.status('hourly')!.last_snapshot_url!;
  const verified = await runKeyward('snapshot', 'verify', url);
  process.stdout.write(verified.out);
  expect(verified.code).toBe(0);
  expect(verified.out).toContain('is a Vault/OpenBao raft snapshot, complete');

  await bao(leader.url, 'PUT', 'sys/seal', { token: root });
  await interval();
  const skipped = agent.scheduler.status('hourly')!;
  expect(skipped.last_snapshot_error).toBe(`attempt skipped: ${leader.url} reports sealed (sys/health)`);
  expect(skipped.consecutive_errors).toBe(1);
  expect(agent.archivesRead()).toBe(1);

  await cluster.unseal(leader);
  await cluster.leader();
  await interval();
  expect(agent.scheduler.status('hourly')).toMatchObject({ consecutive_errors: 0, last_snapshot_error: '' });
  const files = readdirSync(snaps).filter((n) => /^bao-\d+\.snap$/.test(n));
  expect(files).toHaveLength(2);
  for (const f of files) expect((await runKeyward('snapshot', 'verify', join(snaps, f))).code).toBe(0);
}, 180_000);
