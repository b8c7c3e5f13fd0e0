// `keyward snapshot-agent` in front of a real three-node OpenBao raft cluster: configs declared
// through the agent's API in Vault's names with the real `bao` CLI for all four targets, each
// taking a real raft snapshot on its schedule that restores with `bao operator raft snapshot
// restore -force` into a fresh cluster; the agent through a standby (OpenBao 2.7 answers 200 from
// the standby's own raft state: no redirect, no forwarding, also with quorum lost); the leader
// killed mid-schedule; and a front that spoils the real archive after the 200 (cut short,
// SHA256SUMS.sealed dropped), which must be an error and never a snapshot that retention keeps.
//
// The schedule runs on a manual clock (as every agent test here): an interval of 60 s passes in a
// step, the attempts themselves are real requests to the real cluster.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ManualClock } from '../../src/engine/clock';
import { verifyArchive } from '../../src/engine/snapshot/archive-verify';
import { createTarget } from '../../src/engine/snapshot/targets/create-target';
import { validateSnapshotConfigWrite } from '../../src/schema/snapshot-validate';
import { startSnapshotAgent, type SnapshotAgent } from '../../src/snapshot-agent/agent';
import { api } from '../support/engine';
import { isCompleteArchive, startAzurite, startGcs, startS3, type RunningStore } from '../support/object-stores';
import { runKeyward } from '../support/keyward-in-process';
import { bao, realServerTools, runBao, startOpenBaoCluster, type RaftCluster, type RaftNode } from '../support/openbao';
import { restoreTarget, type RestoreTarget } from '../support/openbao-restore';
import { AGENT_CONFIG, AGENT_STATUS, snapshotsIn, T0 } from '../support/snapshot-agent';
import { runAsync } from '../support/run-async';
import { spoilingFront } from '../support/snapshot-spoiling-front';

const INTERVAL = 60;
const clock = new ManualClock(T0);
const root = mkdtempSync(join(tmpdir(), 'kw-agent-raft-'));
let c: RaftCluster;
let fresh: RaftCluster;
let restores: RestoreTarget;
let agentToken: string;
let stores: Record<'s3' | 'gcs' | 'azure', RunningStore>;
const running: SnapshotAgent[] = [];

/** The snapshot configs' store fields in Vault's names, as a Vault client writes them. */
const VAULT_FIELDS: Record<string, string> = {
  cloudone_bucket: 'aws_s3_bucket',
  cloudone_region: 'aws_s3_region',
  cloudone_access_key_id: 'aws_access_key_id',
  cloudone_secret_access_key: 'aws_secret_access_key',
  cloudone_endpoint: 'aws_s3_endpoint',
  cloudone_disable_tls: 'aws_s3_disable_tls',
  cloudone_force_path_style: 'aws_s3_force_path_style',
  cloudtwo_bucket: 'google_gcs_bucket',
  cloudtwo_endpoint: 'google_endpoint',
  cloudtwo_disable_tls: 'google_disable_tls',
  cloudthree_container_name: 'azure_container_name',
  cloudthree_account_name: 'azure_account_name',
  cloudthree_account_key: 'azure_account_key',
  cloudthree_endpoint: 'azure_endpoint',
};
const inVaultNames = (fields: Record<string, string | boolean>) =>
  Object.fromEntries(
    Object.entries(fields).map(([k, v]) => {
      if (!VAULT_FIELDS[k]) throw new Error(`no Vault name for ${k}`);
      return [VAULT_FIELDS[k], v];
    }),
  );

beforeAll(async () => {
  const [s3, gcs, azure] = await Promise.all([startS3(), startGcs(), startAzurite()]);
  stores = { s3, gcs, azure };
  c = await startOpenBaoCluster({ size: 3 });
  const leader = await c.leader();
  await bao(leader.url, 'POST', 'sys/mounts/kv', { token: c.rootToken, body: { type: 'kv' } });
  // The agent's own token: exactly what docs/snapshot-agent.md says it needs (read and sudo on the
  // snapshot path; lookup-self and renew-self come with the default policy), periodic as an operator
  // would give a long-running service.
  await bao(leader.url, 'PUT', 'sys/policies/acl/snapshot-agent', {
    token: c.rootToken,
    body: { policy: 'path "sys/storage/raft/snapshot" {\n  capabilities = ["read", "sudo"]\n}\n' },
  });
  agentToken = (
    await bao<{ auth: { client_token: string } }>(leader.url, 'POST', 'auth/token/create', { token: c.rootToken, body: { policies: ['snapshot-agent'], period: '24h' } })
  ).auth.client_token;
  fresh = await startOpenBaoCluster({ size: 1 });
  restores = restoreTarget(fresh, c);
}, 300_000);

afterAll(async () => {
  for (const a of running) await a.close();
  await c?.close();
  await fresh?.close();
  restores?.close();
  if (stores) await Promise.all(Object.values(stores).map((s) => s.close()));
  rmSync(root, { recursive: true, force: true });
});

async function startAgent(server: string, name: string): Promise<SnapshotAgent> {
  const a = await startSnapshotAgent({
    server,
    listen: '127.0.0.1:0',
    state: join(root, `state-${name}`),
    env: { VAULT_TOKEN: agentToken },
    clock,
    pollMs: 1_000,
    allowAmbientCredentials: true, // the GCS emulator takes no key
  });
  running.push(a);
  return a;
}

async function stopAgent(a: SnapshotAgent): Promise<void> {
  running.splice(running.indexOf(a), 1);
  await a.close();
}

/** The real `bao` CLI against `addr` (asynchronously: the agent under test lives in this process's event loop). */
const baoCli = (addr: string, args: string[]) =>
  runAsync(realServerTools().bao, args, { env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), BAO_ADDR: addr, BAO_TOKEN: c.rootToken } });

/** Moves the schedule on by `intervals` intervals, one at a time, each step waiting for every agent's attempt. */
async function advance(intervals: number): Promise<void> {
  for (let i = 0; i < intervals; i++) {
    await clock.advance(INTERVAL * 1000);
    for (const a of running) {
      await a.scheduler.settled();
      await a.tokens.idle();
    }
  }
}

const writeConfig = async (a: SnapshotAgent, name: string, body: Record<string, unknown>) => {
  const r = await api(a.url, 'POST', `${AGENT_CONFIG}/${name}`, { token: c.rootToken, body });
  expect([r.status, r.text]).toEqual([204, '']);
};
const statusOf = async (a: SnapshotAgent, name: string) =>
  (await api(a.url, 'GET', `${AGENT_STATUS}/${name}`, { token: c.rootToken })).body.data as {
    consecutive_errors: number;
    last_snapshot_error: string;
    last_snapshot_url?: string;
  };
const putValue = async (node: RaftNode, path: string, value: string) => bao(node.url, 'POST', path, { token: c.rootToken, body: { value } });

/**
 * Waits until `node` has applied everything the leader has committed. An OpenBao 2.7 standby answers
 * GET sys/storage/raft/snapshot from its own raft state (measured: it answers 200 at once with the
 * leader killed and no new one elected), so its archive holds what it has applied, which trails the
 * leader's writes by the replication delay.
 */
async function caughtUp(node: RaftNode): Promise<void> {
  const leader = await c.leader();
  const index = (n: RaftNode, k: 'raft_committed_index' | 'raft_applied_index') => bao<Record<string, number>>(n.url, 'GET', 'sys/leader').then((b) => b[k]);
  const committed = await index(leader, 'raft_committed_index');
  for (let i = 0; i < 300 && (await index(node, 'raft_applied_index')) < committed; i++) await new Promise((r) => setTimeout(r, 100));
  expect(await index(node, 'raft_applied_index')).toBeGreaterThanOrEqual(committed);
}

async function readAll(r: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const x of r as AsyncIterable<Buffer>) parts.push(x);
  return Buffer.concat(parts);
}

/** The stored snapshots of an object-store config, oldest first, read through the project's own target. */
async function objectSnapshots(storageType: string, fields: Record<string, string | boolean>, prefix: string): Promise<Array<{ name: string; bytes: Buffer }>> {
  const target = createTarget(validateSnapshotConfigWrite({ storage_type: storageType, interval: INTERVAL, path_prefix: prefix, ...fields }).config);
  try {
    const names = (await target.list()).map((o) => o.name).sort();
    const out = [];
    for (const name of names) out.push({ name, bytes: await readAll(await target.get(name)) });
    return out;
  } finally {
    await target.close();
  }
}

describe('snapshot agent on a real three-node OpenBao raft cluster', () => {
  it('four targets declared with the bao CLI in Vault names each take a real raft snapshot on schedule; each restores into a fresh cluster', async () => {
    const leader = await c.leader();
    await putValue(leader, 'kv/proof', 'before-the-scheduled-snapshots');
    const a = await startAgent(leader.url, 'targets');
    expect(a.info).toMatchObject({ dialect: 'vault', openbao: true });
    const localDir = join(root, 'local-snaps');
    // Declared with the real OpenBao CLI pointed at the agent (key=value pairs: every value a string, as Vault's
    // API takes them), then read back with it.
    const declared: Record<string, Record<string, unknown>> = {
      local: { storage_type: 'local', interval: INTERVAL, retain: 2, path_prefix: localDir, local_max_space: 100_000_000 },
      s3: { storage_type: 'aws-s3', interval: INTERVAL, retain: 2, path_prefix: 'raft/s3/', ...inVaultNames(stores.s3.fields) },
      gcs: { storage_type: 'google-gcs', interval: INTERVAL, retain: 2, path_prefix: 'raft/gcs/', ...inVaultNames(stores.gcs.fields) },
      azure: { storage_type: 'azure-blob', interval: INTERVAL, retain: 2, path_prefix: 'raft/azure/', ...inVaultNames(stores.azure.fields) },
    };
    for (const [name, body] of Object.entries(declared)) {
      const w = await baoCli(a.url, ['write', `${AGENT_CONFIG}/${name}`, ...Object.entries(body).map(([k, v]) => `${k}=${String(v)}`)]);
      expect({ name, status: w.status, err: w.stderr }).toEqual({ name, status: 0, err: '' });
    }
    const listed = await baoCli(a.url, ['list', '-format=json', AGENT_CONFIG]);
    expect(JSON.parse(listed.stdout)).toEqual(['azure', 'gcs', 'local', 's3']);
    // Read back in Vault's names, without the credentials.
    const read = await baoCli(a.url, ['read', '-format=json', `${AGENT_CONFIG}/s3`]);
    const s3 = (JSON.parse(read.stdout) as { data: Record<string, unknown> }).data;
    expect(s3).toMatchObject({ storage_type: 'aws-s3', aws_s3_bucket: 'snapshots', interval: INTERVAL, retain: 2, aws_s3_disable_tls: true });
    expect(s3).not.toHaveProperty('aws_secret_access_key');
    const azure = await baoCli(a.url, ['read', '-format=json', `${AGENT_CONFIG}/azure`]);
    expect(azure.stdout).not.toContain(String(stores.azure.fields.cloudthree_account_key));

    await advance(3);
    for (const name of ['local', 's3', 'gcs', 'azure']) expect({ name, ...(await statusOf(a, name)) }).toMatchObject({ name, consecutive_errors: 0, last_snapshot_error: '' });
    expect(a.archivesRead()).toBe(12);

    const taken: Array<{ where: string; bytes: Buffer }> = [];
    const local = await snapshotsIn(localDir);
    expect(local).toHaveLength(2);
    taken.push({ where: `local ${local[1]}`, bytes: readFileSync(join(localDir, local[1])) });
    for (const [type, store, prefix] of [
      ['cloudone-store', stores.s3, 'raft/s3/'],
      ['cloudtwo-store', stores.gcs, 'raft/gcs/'],
      ['cloudthree-store', stores.azure, 'raft/azure/'],
    ] as const) {
      const objs = await objectSnapshots(type, store.fields, prefix);
      expect(objs.map((o) => o.name)).toEqual([expect.stringMatching(/^vault-snapshot-\d+\.snap$/), expect.stringMatching(/^vault-snapshot-\d+\.snap$/)]);
      taken.push({ where: `${type} ${objs[1].name}`, bytes: objs[1].bytes });
    }
    // `keyward snapshot verify` passes each: the local one by the file:// URL its status prints, the stored objects
    // as files (fetched through the target, as a user would with the store's own tool).
    const localUrl = (await statusOf(a, 'local')).last_snapshot_url!;
    expect(localUrl).toMatch(/^file:\/\//);
    const verified = [await runKeyward('snapshot', 'verify', localUrl)];
    for (const [i, t] of taken.entries()) {
      const file = join(root, `fetched-${i}.snap`);
      writeFileSync(file, t.bytes);
      verified.push(await runKeyward('snapshot', 'verify', file));
    }
    // And the archive the real CLI saves, for comparison.
    const saved = join(root, 'bao-cli.snap');
    expect(runBao(['operator', 'raft', 'snapshot', 'save', saved], { addr: leader.url, token: c.rootToken }).code).toBe(0);
    verified.push(await runKeyward('snapshot', 'verify', saved));
    for (const v of verified) {
      expect({ code: v.code, err: v.err }).toEqual({ code: 0, err: '' });
      expect(v.out).toMatch(/^verified: .* is a Vault\/OpenBao raft snapshot, complete$/m);
      expect(v.out).not.toMatch(/FAIL/);
    }
    for (const t of taken) {
      expect({ where: t.where, complete: await isCompleteArchive(t.bytes) }).toEqual({ where: t.where, complete: true });
      await restores.restore(t.bytes, 'kv/proof', 'before-the-scheduled-snapshots');
    }
    await stopAgent(a);
  }, 300_000);

  it('through a standby: OpenBao 2.7 answers the snapshot read itself (200, no redirect) and the archive restores', async () => {
    const [standby] = await c.standbys();
    const leader = await c.leader();
    await putValue(leader, 'kv/standby', 'written-on-the-leader');
    await caughtUp(standby);
    const a = await startAgent(standby.url, 'standby');
    const dir = join(root, 'standby-snaps');
    await writeConfig(a, 'via-standby', { storage_type: 'local', interval: INTERVAL, retain: 5, path_prefix: dir, local_max_space: 100_000_000 });
    await advance(1);
    expect(await statusOf(a, 'via-standby')).toMatchObject({ consecutive_errors: 0, last_snapshot_error: '' });
    const files = await snapshotsIn(dir);
    expect(files).toHaveLength(1);
    const bytes = readFileSync(join(dir, files[0]));
    expect(await isCompleteArchive(bytes)).toBe(true);
    await restores.restore(bytes, 'kv/standby', 'written-on-the-leader');
    await stopAgent(a);
  }, 180_000);

  it('the leader is killed mid-schedule: the next attempt succeeds against the new leader', async () => {
    const old = await c.leader();
    const [survivor] = await c.standbys();
    // One agent on a node that survives, one on the node that is killed (its only address: --server takes one).
    const viaSurvivor = await startAgent(survivor.url, 'survivor');
    const viaDead = await startAgent(old.url, 'dead');
    const dirS = join(root, 'failover-survivor');
    const dirD = join(root, 'failover-dead');
    await writeConfig(viaSurvivor, 'failover', { storage_type: 'local', interval: INTERVAL, retain: 10, path_prefix: dirS, local_max_space: 100_000_000 });
    await writeConfig(viaDead, 'failover', { storage_type: 'local', interval: INTERVAL, retain: 10, path_prefix: dirD, local_max_space: 100_000_000 });
    await advance(1);
    expect(await statusOf(viaSurvivor, 'failover')).toMatchObject({ consecutive_errors: 0 });
    expect(await statusOf(viaDead, 'failover')).toMatchObject({ consecutive_errors: 0 });

    await old.stop('SIGKILL');
    // An attempt while the cluster has no leader yet: whatever it gives, it is never a stored snapshot that is not an archive.
    await advance(1);
    // The agent whose server is down cannot serve its own status: a caller's permissions are the managed server's
    // to decide (sys/capabilities-self), so the API answers 503 naming the server; its scheduler has the record.
    const unreachable = await api(viaDead.url, 'GET', `${AGENT_STATUS}/failover`, { token: c.rootToken });
    expect(unreachable.status).toBe(503);
    expect(unreachable.text).toContain(old.url);
    const during = { survivor: await statusOf(viaSurvivor, 'failover'), dead: viaDead.scheduler.status('failover') };
    const seen = await bao(survivor.url, 'GET', 'sys/leader');
    process.stdout.write(`attempt right after the kill: ${JSON.stringify(during)}; sys/leader on the survivor: ${JSON.stringify(seen)}\n`);
    // The survivor reads from the node its sys/leader names: the dead one until a new leader is elected (the attempt
    // fails, naming it), or the new leader (a snapshot). Never the survivor's own copy, which may trail the cluster.
    expect(during.survivor.consecutive_errors === 0 || /active node .* did not answer|names no active node/.test(String(during.survivor.last_snapshot_error))).toBe(true);
    for (const f of await snapshotsIn(dirS)) expect(await isCompleteArchive(readFileSync(join(dirS, f)))).toBe(true);
    expect(during.dead?.consecutive_errors).toBe(1);

    const next = await c.leader(90_000);
    expect(next.id).not.toBe(old.id);
    await putValue(next, 'kv/failover', 'written-on-the-new-leader');
    await caughtUp(survivor);
    const before = (await snapshotsIn(dirS)).length;
    await advance(1);
    expect(await statusOf(viaSurvivor, 'failover')).toMatchObject({ consecutive_errors: 0, last_snapshot_error: '' });
    const files = await snapshotsIn(dirS);
    expect(files).toHaveLength(before + 1);
    await restores.restore(readFileSync(join(dirS, files[files.length - 1])), 'kv/failover', 'written-on-the-new-leader');

    // The agent whose only address is the dead node fails every attempt until that node is back (restarted, unsealed:
    // it rejoins as a standby, which forwards).
    const dead = viaDead.scheduler.status('failover')!;
    process.stdout.write(`attempts through the dead node: ${JSON.stringify(dead)}\n`);
    expect(dead.consecutive_errors).toBe(2);
    expect(dead.last_snapshot_error).toMatch(/sys\/storage\/raft\/snapshot|ECONNREFUSED|connect/i);
    await old.start();
    await c.unseal(old);
    await caughtUp(old);
    await advance(1);
    expect(await statusOf(viaDead, 'failover')).toMatchObject({ consecutive_errors: 0, last_snapshot_error: '' });
    const deadFiles = await snapshotsIn(dirD);
    await restores.restore(readFileSync(join(dirD, deadFiles[deadFiles.length - 1])), 'kv/failover', 'written-on-the-new-leader');
    await stopAgent(viaSurvivor);
    await stopAgent(viaDead);
  }, 300_000);

  describe('a 200 that carries no whole archive is an error, never a snapshot', () => {
    for (const spoil of ['cut', 'unsealed'] as const) {
      it(`${spoil === 'cut' ? 'a body that ends early' : 'an archive without SHA256SUMS.sealed'}: the attempts fail and the good snapshots survive retention`, async () => {
        const leader = await c.leader();
        const front = await spoilingFront(leader.url);
        try {
          const a = await startAgent(front.url, `spoil-${spoil}`);
          const dir = join(root, `spoil-${spoil}`);
          await writeConfig(a, 'kept', { storage_type: 'local', interval: INTERVAL, retain: 2, path_prefix: dir, local_max_space: 100_000_000 });
          await advance(3);
          const good = await snapshotsIn(dir);
          expect(good).toHaveLength(2);
          const goodBytes = good.map((f) => readFileSync(join(dir, f)));
          expect(await statusOf(a, 'kept')).toMatchObject({ consecutive_errors: 0 });

          front.mode = spoil;
          await advance(3);
          expect(front.spoiled).toBe(3);
          const status = await statusOf(a, 'kept');
          expect(status.consecutive_errors).toBe(3);
          expect(status.last_snapshot_error).toMatch(spoil === 'cut' ? /gzip|incomplete|truncat/i : /SHA256SUMS\.sealed/);
          process.stdout.write(`${spoil}: ${status.last_snapshot_error}\n`);
          // Exactly the good ones are left, byte for byte: no spoiled archive stored, none of the good ones pruned.
          expect(await snapshotsIn(dir)).toEqual(good);
          expect(good.map((f) => readFileSync(join(dir, f)).equals(goodBytes[good.indexOf(f)]))).toEqual([true, true]);

          front.mode = 'none';
          await advance(1);
          expect(await statusOf(a, 'kept')).toMatchObject({ consecutive_errors: 0, last_snapshot_error: '' });
          await stopAgent(a);
        } finally {
          await front.close();
        }
      }, 180_000);
    }
  });

  // Last: it takes the cluster's quorum away. What an agent pointed at a standby gets when the standby is cut off: the
  // standby does not forward (there is no one to forward to) and does not refuse; it answers from its own raft state,
  // a whole archive, while sys/leader still names the dead leader. An agent on that node records a success; its
  // archive holds what that node had applied (docs/real-servers.md).
  it('with quorum lost, a standby still answers the snapshot read with a whole archive of its own state; the agent takes it for no backup', async () => {
    const leader = await c.leader();
    const [alone, other] = await c.standbys();
    await caughtUp(alone);
    await leader.stop('SIGKILL');
    await other.stop('SIGKILL');
    // Longer than an election takes here (a new leader after a kill: under 20 s): none can be elected with one of three.
    await new Promise((r) => setTimeout(r, 20_000));
    const seen = await bao<{ is_self: boolean; leader_address: string }>(alone.url, 'GET', 'sys/leader');
    expect(seen).toMatchObject({ is_self: false, leader_address: leader.url });
    const r = await fetch(`${alone.url}/v1/sys/storage/raft/snapshot`, { headers: { 'x-vault-token': c.rootToken }, redirect: 'manual' });
    const body = Buffer.from(await r.arrayBuffer());
    expect({ status: r.status, type: r.headers.get('content-type') }).toEqual({ status: 200, type: 'application/gzip' });
    expect((await verifyArchive(Readable.from([body]))).ok).toBe(true);
    await restores.restore(body, 'kv/failover', 'written-on-the-new-leader');
    // The agent does not take that copy for a backup: it reads from the leader the standby names, which is gone, so
    // the attempt is an error and nothing is stored (before: consecutive_errors 0 and a stored snapshot of a node cut
    // off from its cluster).
    const a = await startAgent(alone.url, 'alone');
    await writeConfig(a, 'alone', { storage_type: 'local', interval: INTERVAL, retain: 2, path_prefix: join(root, 'alone'), local_max_space: 100_000_000 });
    await advance(1);
    const st = a.scheduler.status('alone');
    process.stdout.write(`agent on a standby without quorum: ${JSON.stringify(st)}\n`);
    expect(st?.consecutive_errors).toBe(1);
    expect(st?.last_snapshot_error).toMatch(/active node .* did not answer/);
    expect(await snapshotsIn(join(root, 'alone')).catch(() => [])).toEqual([]);
    await stopAgent(a);
  }, 120_000);
});
