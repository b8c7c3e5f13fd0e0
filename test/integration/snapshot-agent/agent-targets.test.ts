// The agent writes the managed server's snapshots to the three object stores through their
// emulators (s3rver, our GCS emulator, azurite) with the engine's targets: final names only,
// retention holds, status carries the object URL, and the newest snapshot restores into the engine.

import { createTarget } from '../../../src/engine/snapshot/targets/create-target';
import { validateSnapshotConfigWrite } from '../../../src/schema/snapshot-validate';
import { api } from '../../support/engine';
import { isCompleteArchive, startAzurite, startGcs, startS3, type RunningStore } from '../../support/object-stores';
import { AGENT_CONFIG, AGENT_STATUS, startAgentHarness, type AgentHarness } from '../../support/snapshot-agent';
import { readAll } from '../../support/read-all';

let stores: Record<string, RunningStore> = {};
let h: AgentHarness;
beforeAll(async () => {
  const [s3, gcs, azure] = await Promise.all([startS3(), startGcs(), startAzurite()]);
  stores = { 'cloudone-store': s3, 'cloudtwo-store': gcs, 'cloudthree-store': azure };
  h = await startAgentHarness();
});
afterAll(async () => {
  await h?.close();
  await Promise.all(Object.values(stores).map((s) => s.close()));
});

it('snapshots on schedule to s3, gcs and azure; retention holds; the newest restores', async () => {
  const a = await h.agent({ allowAmbientCredentials: true }); // the GCS emulator takes no key: the agent's own identity stands in
  for (const type of Object.keys(stores)) {
    const body = { storage_type: type, interval: 60, retain: 2, path_prefix: `agent/${type}/`, ...stores[type].fields };
    const w = await api(a.url, 'POST', `${AGENT_CONFIG}/to-${type}`, { body });
    expect([w.status, w.text]).toEqual([204, '']);
  }
  await h.advance(180_000, 5_000);
  for (const type of Object.keys(stores)) {
    const status = (await api(a.url, 'GET', `${AGENT_STATUS}/to-${type}`)).body.data;
    expect(status).toMatchObject({ consecutive_errors: 0, last_snapshot_error: '' });
    const target = createTarget(validateSnapshotConfigWrite({ storage_type: type, interval: 60, path_prefix: `agent/${type}/`, ...stores[type].fields }).config);
    try {
      const names = (await target.list()).map((o) => o.name).sort();
      expect(names).toHaveLength(2);
      for (const n of names) expect(n).toMatch(/^vault-snapshot-\d+\.snap$/);
      expect(status.last_snapshot_url).toContain(names[1]);
      const bytes = await readAll(await target.get(names[1]));
      expect(await isCompleteArchive(bytes)).toBe(true);
      const r = await api(h.engine, 'POST', 'sys/storage/raft/snapshot', { rawBody: bytes });
      expect([r.status, r.text]).toEqual([204, '']);
    } finally {
      await target.close();
    }
  }
}, 120_000);
