// Deadlines on the agent's attempts, on the injected clock: a store that stalls inside the upload
// (the GCS emulator's gate held shut) and a managed server that never answers the snapshot read
// both end the attempt at its deadline with the error in the status; another config is not held by
// it, and the stalled one is scheduled again.

import { join } from 'node:path';
import { DEFAULT_DEADLINE } from '../../../src/engine/snapshot/deadline';
import { api } from '../../support/engine';
import { forwardingFront } from '../../support/forwarding-front';
import type { GcsEmulator } from '../../support/gcs-emulator/server';
import { startGcs, type RunningStore } from '../../support/object-stores';
import { until } from '../../support/poll';
import { AGENT_CONFIG, AGENT_STATUS, startAgentHarness, type AgentHarness } from '../../support/snapshot-agent';

let gcs: RunningStore & { emulator: GcsEmulator };
let h: AgentHarness;
beforeAll(async () => {
  gcs = await startGcs();
});
afterAll(async () => {
  await gcs?.close();
});
beforeEach(async () => {
  h = await startAgentHarness();
});
afterEach(async () => {
  await h.close();
});

it('a store that stalls mid-upload: the attempt ends at its deadline, another config is not held', async () => {
  const a = await h.agent({ allowAmbientCredentials: true }); // the GCS emulator takes no key: the agent's own identity stands in
  let release!: () => void;
  gcs.emulator.store.uploadGate = new Promise<void>((r) => (release = r));
  try {
    await api(a.url, 'POST', `${AGENT_CONFIG}/cloud`, { body: { storage_type: 'cloudtwo-store', interval: 60, path_prefix: 'stall/', ...gcs.fields } });
    await api(a.url, 'POST', `${AGENT_CONFIG}/local`, { body: { storage_type: 'local', interval: 60, path_prefix: join(h.root, 'local'), local_max_space: 1e9 } });
    await h.clock.advance(60_000);
    // The local attempt ends (real I/O) before the clock jumps past its deadline; the cloud one stalls.
    await until(
      'the cloud upload in flight and the local attempt done',
      () => gcs.emulator.store.activeUploads === 1 && a.scheduler.status('local')?.last_snapshot_end !== undefined,
      Boolean,
      { intervalMs: 0 },
    );
    // The clock moves without waiting for the stalled attempt (that wait is what a deadline ends).
    await h.clock.advance(DEFAULT_DEADLINE.floorMs + 1000);
    for (const x of h.agents) await x.scheduler.settled();
    const cloud = (await api(a.url, 'GET', `${AGENT_STATUS}/cloud`)).body.data;
    expect(cloud.consecutive_errors).toBe(1);
    expect(cloud.last_snapshot_error).toMatch(/^upload to cloudtwo-store failed: AttemptDeadlineError: the attempt did not finish within its deadline of 60 s/);
    expect(cloud.next_snapshot_start > cloud.last_snapshot_end).toBe(true);
    const local = (await api(a.url, 'GET', `${AGENT_STATUS}/local`)).body.data;
    expect(local).toMatchObject({ consecutive_errors: 0, last_snapshot_error: '' });
  } finally {
    release();
    gcs.emulator.store.uploadGate = undefined;
  }
}, 60_000);

it('a managed server that never answers the snapshot read: the attempt ends at its deadline', async () => {
  // In front of the engine: everything passes except GET sys/storage/raft/snapshot, which hangs.
  const held: import('node:http').ServerResponse[] = [];
  const front = await forwardingFront(h.engine.url, (req, res) => {
    if (!req.url?.startsWith('/v1/sys/storage/raft/snapshot') || req.url.includes('snapshot-auto')) return false;
    held.push(res);
    return true;
  });
  try {
    const a = await h.agent({ server: front.url });
    await api(a.url, 'POST', `${AGENT_CONFIG}/slow`, { body: { storage_type: 'local', interval: 60, path_prefix: join(h.root, 'slow'), local_max_space: 1e9 } });
    await h.clock.advance(60_000);
    await until('the snapshot read held', () => held.length === 1, Boolean, { intervalMs: 0 });
    // The clock moves without waiting for the stalled attempt (that wait is what a deadline ends).
    await h.clock.advance(DEFAULT_DEADLINE.floorMs + 1000);
    for (const x of h.agents) await x.scheduler.settled();
    const s = (await api(a.url, 'GET', `${AGENT_STATUS}/slow`)).body.data;
    expect(s.consecutive_errors).toBe(1);
    expect(s.last_snapshot_error).toMatch(/^reading the snapshot from http:\/\/127\.0\.0\.1:\d+ failed: the attempt did not finish within its deadline of 60 s/);
    expect(s.next_snapshot_start > s.last_snapshot_end).toBe(true);
  } finally {
    for (const r of held) r.destroy();
    await front.close();
  }
}, 60_000);
