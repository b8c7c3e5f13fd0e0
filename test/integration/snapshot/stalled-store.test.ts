// Acceptance for a stalled store, per cloud target, with real processes: the engine (its attempt
// deadline floor shortened through KEYWARD_SNAPSHOT_ATTEMPT_FLOOR_MS) and the store, SIGSTOPped
// mid-upload. The error shows within the deadline, another config keeps its schedule, a restore
// answers, SIGTERM stops the engine within seconds, and after SIGCONT the next attempt succeeds
// with only whole archives under final names. Waiting on another process is done by polling.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTarget } from '../../../src/engine/snapshot/targets/create-target';
import { validateSnapshotConfigWrite } from '../../../src/schema/snapshot-validate';
import { api, ROOT_TOKEN } from '../../support/engine';
import { startEngineProcess, type EngineProcess } from '../../support/engine-process';
import { isCompleteArchive, startStoreProcess, type StoreKind } from '../../support/object-stores';
import { until } from '../../support/poll';
import { readAll } from '../../support/read-all';

jest.setTimeout(120_000);
const STATUS = 'sys/storage/raft/snapshot-auto/status';
const CONFIG = 'sys/storage/raft/snapshot-auto/config';
const FLOOR_MS = 1500;
const TYPES: Record<StoreKind, string> = { s3: 'cloudone-store', gcs: 'cloudtwo-store', azure: 'cloudthree-store' };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kw-stall-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe.each(['s3', 'gcs', 'azure'] as StoreKind[])('a stalled %s store', (kind) => {
  it('never blocks the schedule, another config, a restore or shutdown', async () => {
    const store = await startStoreProcess(kind);
    let engine: EngineProcess | undefined;
    try {
      engine = await startEngineProcess({ dataDir: join(dir, kind), rootToken: ROOT_TOKEN, env: { KEYWARD_SNAPSHOT_ATTEMPT_FLOOR_MS: String(FLOOR_MS) } });
      const e = engine;
      const body = { storage_type: TYPES[kind], interval: 1, retain: 3, path_prefix: `stall-${kind}/`, ...store.fields };
      expect((await api(e.url, 'POST', `${CONFIG}/cloud`, { body })).status).toBe(204);
      expect(
        (await api(e.url, 'POST', `${CONFIG}/local`, { body: { storage_type: 'local', interval: 1, path_prefix: join(dir, `${kind}-local`), local_max_space: 1e9 } })).status,
      ).toBe(204);
      const status = async (name: string) => (await api(e.url, 'GET', `${STATUS}/${name}`)).body.data;
      await until(
        'a first cloud snapshot',
        () => status('cloud'),
        (s) => !!s.last_snapshot_url && s.consecutive_errors === 0,
      );
      const archive = Buffer.from(await (await fetch(`${e.url}/v1/sys/storage/raft/snapshot`, { headers: { 'x-vault-token': ROOT_TOKEN } })).arrayBuffer());

      process.kill(store.pid, 'SIGSTOP');
      const stoppedAt = Date.now();
      const failed = await until(
        'the stall in the status',
        () => status('cloud'),
        (s) => s.consecutive_errors >= 1,
      );
      // One interval to the next attempt, then its deadline (floor, plus a few ms for the bytes).
      expect(Date.now() - stoppedAt).toBeLessThan(1000 + FLOOR_MS + 3000);
      expect(failed.last_snapshot_error).toMatch(new RegExp(`^upload to ${TYPES[kind]} failed: `));
      const localBefore = (await status('local')).last_snapshot_end;
      await until(
        'the other config to run again',
        () => status('local'),
        (s) => s.last_snapshot_end > localBefore && s.consecutive_errors === 0,
        { timeoutMs: 5000 },
      );

      const t = Date.now();
      const restored = await api(e.url, 'POST', 'sys/storage/raft/snapshot', { rawBody: archive });
      expect([restored.status, restored.text]).toEqual([204, '']);
      expect(Date.now() - t).toBeLessThan(5000);

      process.kill(store.pid, 'SIGCONT');
      await until(
        'a successful attempt after SIGCONT',
        () => status('cloud'),
        (s) => s.consecutive_errors === 0 && !!s.last_snapshot_url,
        { timeoutMs: 30_000 },
      );
      // Paused while the objects are checked (retention every second would race the reads).
      expect((await api(e.url, 'DELETE', `${CONFIG}/cloud`)).status).toBe(204);
      const target = createTarget(validateSnapshotConfigWrite(body).config);
      const objects = await target.list();
      expect(objects.length).toBeGreaterThan(0);
      for (const o of objects) {
        if (!/^vault-snapshot-\d+\.snap$/.test(o.name)) continue;
        // A name can vanish between list and read: the store may commit an aborted upload late, and
        // a delete sent just before the config was deleted (retention, the cleanup of such names)
        // can still land. Only objects that exist must be whole.
        const gone = (err: unknown) => (/no such object|does not exist|not ?found|404/i.test(String(err)) ? undefined : Promise.reject(err));
        const bytes = await target.get(o.name).then(readAll).catch(gone);
        if (bytes === undefined) continue;
        expect([o.name, await isCompleteArchive(bytes)]).toEqual([o.name, true]);
      }
      await target.close();
      expect((await api(e.url, 'POST', `${CONFIG}/cloud`, { body })).status).toBe(204);

      // Stalled again with attempts running every second: SIGTERM still stops the engine promptly.
      process.kill(store.pid, 'SIGSTOP');
      await until(
        'an attempt against the stalled store',
        () => status('cloud'),
        (s) => s.consecutive_errors >= 1,
      );
      const exited = new Promise<number | null>((r) => e.child.once('exit', (code) => r(code)));
      const termAt = Date.now();
      e.stop();
      expect(await exited).toBe(0);
      expect(Date.now() - termAt).toBeLessThan(5000);
      engine = undefined;
    } finally {
      engine?.child.kill('SIGKILL');
      await store.close();
    }
  });
});
