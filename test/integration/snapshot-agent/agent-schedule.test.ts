// The agent's schedules against the engine in oss edition, all on one manual clock: snapshots of
// the managed server on time with retention, an archive that restores into the engine, configs and
// status surviving a restart, two agents on one state taking each snapshot once, and a dead
// agent's lease taken over within one interval.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { api } from '../../support/engine';
import { AGENT_CONFIG, AGENT_STATUS, T0, snapshotsIn, startAgentHarness, type AgentHarness } from '../../support/snapshot-agent';

let h: AgentHarness;
beforeEach(async () => {
  h = await startAgentHarness();
});
afterEach(async () => {
  await h.close();
});

const localBody = (dir: string, extra: Record<string, unknown> = {}) => ({ storage_type: 'local', interval: 60, path_prefix: dir, local_max_space: 50_000_000, ...extra });
const ns = (s: number) => `vault-snapshot-${BigInt(T0 + s * 1000) * 1_000_000n}.snap`;

describe('snapshot agent schedules', () => {
  it("takes the managed server's snapshots on schedule, keeps `retain`, and an archive restores into the engine", async () => {
    const a = await h.agent();
    const dir = join(h.root, 'out');
    expect((await api(a.url, 'POST', `${AGENT_CONFIG}/a`, { body: localBody(dir, { retain: 2 }) })).status).toBe(204);
    await h.advance(59_000);
    expect(await snapshotsIn(dir)).toEqual([]);
    await h.advance(1_000);
    expect(await snapshotsIn(dir)).toEqual([ns(60)]);
    const status = (await api(a.url, 'GET', `${AGENT_STATUS}/a`)).body.data;
    expect(status).toMatchObject({ consecutive_errors: 0, last_snapshot_error: '', last_snapshot_url: `file://${dir}/${ns(60)}`, next_snapshot_start: '2026-01-01T00:02:00Z' });
    await h.advance(180_000);
    expect(await snapshotsIn(dir)).toEqual([ns(180), ns(240)]);
    // A policy written after the snapshot is gone once the snapshot is restored.
    expect((await api(h.engine, 'PUT', 'sys/policies/acl/later', { body: { policy: 'path "x" { capabilities = ["read"] }' } })).status).toBe(204);
    const archive = await readFile(join(dir, ns(240)));
    expect((await api(h.engine, 'POST', 'sys/storage/raft/snapshot', { rawBody: archive })).status).toBe(204);
    expect((await api(h.engine, 'GET', 'sys/policies/acl/later')).status).toBe(404);
  });

  it('a failed read of the managed server is an error in status, and the schedule goes on', async () => {
    const a = await h.agent({ env: { VAULT_TOKEN: 'not-a-valid-token' } });
    const dir = join(h.root, 'out');
    expect((await api(a.url, 'POST', `${AGENT_CONFIG}/a`, { body: localBody(dir) })).status).toBe(204);
    await h.advance(60_000);
    const s = (await api(a.url, 'GET', `${AGENT_STATUS}/a`)).body.data;
    expect(s.consecutive_errors).toBe(1);
    expect(s.last_snapshot_error).toMatch(/^reading the snapshot from http:\/\/127\.0\.0\.1:\d+ failed: GET sys\/storage\/raft\/snapshot answered status 403: permission denied$/);
    expect(s.next_snapshot_start).toBe('2026-01-01T00:02:00Z');
    expect(JSON.stringify(s)).not.toContain('not-a-valid-token');
  });

  it('a restarted agent on the same state keeps every config and status and resumes the schedule', async () => {
    const a = await h.agent();
    const dir = join(h.root, 'out');
    await api(a.url, 'POST', `${AGENT_CONFIG}/a`, { body: localBody(dir, { retain: 5 }) });
    await api(a.url, 'POST', `${AGENT_CONFIG}/b`, { body: localBody(dir, { file_prefix: 'other', interval: 120 }) });
    await h.advance(60_000);
    const before = (await api(a.url, 'GET', `${AGENT_STATUS}/a`)).body.data;
    await a.close();
    const b = await h.agent();
    expect((await api(b.url, 'GET', `${AGENT_CONFIG}?list=true`)).body.data.keys).toEqual(['a', 'b']);
    expect((await api(b.url, 'GET', `${AGENT_STATUS}/a`)).body.data).toEqual(before);
    await h.advance(60_000);
    expect(await snapshotsIn(dir)).toEqual([ns(60), ns(120)]);
    expect(await snapshotsIn(dir, 'other')).toEqual([`other-${BigInt(T0 + 120_000) * 1_000_000n}.snap`]);
  });

  it('two agents on one state take each snapshot once per interval (ten intervals)', async () => {
    const a = await h.agent();
    const b = await h.agent();
    const dir = join(h.root, 'out');
    await api(a.url, 'POST', `${AGENT_CONFIG}/a`, { body: localBody(dir, { retain: 100, interval: 10 }) });
    // b learns of the config from the state (its poll), not from its own API.
    await h.advance(100_000);
    expect(await snapshotsIn(dir)).toEqual(Array.from({ length: 10 }, (_, i) => ns(10 * (i + 1))));
    // Each slot read from the managed server once, by one of the two.
    expect(a.archivesRead() + b.archivesRead()).toBe(10);
    // Both agents serve the same status.
    expect((await api(b.url, 'GET', `${AGENT_STATUS}/a`)).body.data).toEqual((await api(a.url, 'GET', `${AGENT_STATUS}/a`)).body.data);
    // Leases of finished slots are gone.
    expect(await a.state.list('lease/')).toEqual([]);
    // With one agent gone the other takes every later slot, still once each.
    const byA = a.archivesRead();
    const byB = b.archivesRead();
    await (byA > 0 ? a : b).close();
    await h.advance(100_000);
    expect((await snapshotsIn(dir)).length).toBe(20);
    expect(a.archivesRead() + b.archivesRead()).toBe(20);
    expect(byA > 0 ? b.archivesRead() - byB : a.archivesRead() - byA).toBe(10);
  });

  it("a dead agent's lease expires and another agent takes the slot within one interval", async () => {
    const b = await h.agent();
    const dir = join(h.root, 'out');
    await api(b.url, 'POST', `${AGENT_CONFIG}/a`, { body: localBody(dir, { retain: 100, interval: 60 }) });
    // A lease on the first slot held by an agent that died holding it (never renewed, never released).
    const slot = T0 + 60_000;
    expect(await b.state.createExclusive(`lease/a/${slot}-00000000`, Buffer.from(JSON.stringify({ owner: 'dead', expires_at: slot + 30_000 })))).toBe(true);
    await h.advance(60_000);
    expect(await snapshotsIn(dir)).toEqual([]);
    await h.advance(30_000);
    // Taken once the lease expired (half an interval), stamped with the time it was taken.
    const taken = await snapshotsIn(dir);
    expect(taken.length).toBe(1);
    const at = Number(BigInt(/-(\d+)\.snap$/.exec(taken[0])![1]) / 1_000_000n);
    expect(at - slot).toBeGreaterThanOrEqual(30_000);
    expect(at - slot).toBeLessThan(60_000);
    expect(await b.state.list('lease/')).toEqual([]);
  });
});
