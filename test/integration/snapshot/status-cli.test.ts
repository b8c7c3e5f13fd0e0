// `keyward status` as a real process against an engine: the table and --json rows for a config
// that ran (last snapshot, URL) and one that never ran; a row the server cannot read (a damaged
// stored record) is listed with its error while the others still show.

import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { SystemContext, SystemFamilyFactory } from '../../../src/engine/route-family';
import { ManualClock } from '../../../src/engine/clock';
import { createSnapshotFamily, snapshotFamily, type SnapshotFamily } from '../../../src/engine/snapshot/family';
import { systemFamilyFactories } from '../../../src/engine/sys/families';
import { api, ROOT_TOKEN, startTestEngine } from '../../support/engine';

const run = promisify(execFile);
const BIN = resolve(__dirname, '../../../bin/keyward.js');
const T0 = Date.UTC(2026, 0, 1);
let engine: Awaited<ReturnType<typeof startTestEngine>>;
let dir: string;
let sys: SystemContext;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kw-status-'));
  const clock = new ManualClock(T0);
  let family: SnapshotFamily | undefined;
  const capture: SystemFamilyFactory = (s) => {
    sys = s;
    return (family = createSnapshotFamily(s));
  };
  engine = await startTestEngine({ clock, edition: 'enterprise', systemFamilies: [...systemFamilyFactories.filter((f) => f !== snapshotFamily), capture] });
  await api(engine, 'POST', 'sys/storage/raft/snapshot-auto/config/hourly', { body: { storage_type: 'local', interval: '1h', path_prefix: dir, local_max_space: 1e9 } });
  await clock.advance(3_600_000);
  await family!.scheduler.settled();
  await api(engine, 'POST', 'sys/storage/raft/snapshot-auto/config/weekly', { body: { storage_type: 'local', interval: '7d', path_prefix: join(dir, 'w'), local_max_space: 1e9 } });
});
afterAll(async () => {
  await engine?.close();
  await rm(dir, { recursive: true, force: true });
});

const env = () => ({ ...process.env, VAULT_ADDR: engine.url, VAULT_TOKEN: ROOT_TOKEN, VAULT_NAMESPACE: '' });

it('prints a table of configs with last and next snapshot, errors and URL', async () => {
  const { stdout } = await run(process.execPath, [BIN, 'status'], { env: env() });
  const lines = stdout.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^NAME\s+TYPE\s+LAST SNAPSHOT\s+NEXT SNAPSHOT\s+ERRORS\s+LAST ERROR\s+URL$/);
  expect(lines[1]).toMatch(/^hourly\s+local\s+2026-01-01T01:00:00Z\s+2026-01-01T02:00:00Z\s+0\s+-\s+file:\/\/.+\/vault-snapshot-\d{19}\.snap$/);
  expect(lines[2]).toMatch(/^weekly\s+local\s+-\s+2026-01-08T01:00:00Z\s+0\s+-\s+-$/);
});

it('prints the same rows as JSON with --json', async () => {
  const { stdout } = await run(process.execPath, [BIN, 'status', '--json'], { env: env() });
  const rows = JSON.parse(stdout).snapshots;
  expect(rows.map((r: { name: string }) => r.name)).toEqual(['hourly', 'weekly']);
  expect(rows[0]).toMatchObject({ storage_type: 'local', interval: 3600, retain: 1, last_snapshot_end: '2026-01-01T01:00:00Z', consecutive_errors: 0, last_snapshot_error: '' });
  expect(rows[1]).toMatchObject({ interval: 604800, last_snapshot_end: null, next_snapshot_start: '2026-01-08T01:00:00Z', last_snapshot_url: '' });
});

describe('with damaged stored records', () => {
  beforeAll(async () => {
    // Written straight into the store, as an older version or a damaged restore could leave them.
    await sys.store.put('sys/snapshot-auto/config/broken', { config: null, written_at: 0 });
    await sys.store.put('sys/snapshot-auto/config/far', {
      config: { storage_type: 'local', interval: 99999999999999, retain: 1, path_prefix: dir, file_prefix: 'far', local_max_space: 1e9 },
      written_at: T0,
    });
    await sys.store.put('sys/snapshot-auto/status/far', { consecutive_errors: 0, next_snapshot_start: T0 + 99999999999999 * 1000 });
  });
  afterAll(async () => {
    await sys.store.delete('sys/snapshot-auto/config/broken');
    await sys.store.delete('sys/snapshot-auto/config/far');
    await sys.store.delete('sys/snapshot-auto/status/far');
  });

  it('answers the status route for a time past the Date range without a 500', async () => {
    const r = await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/status/far');
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ consecutive_errors: 0 });
  });

  it('lists every row and shows the unreadable one with its error', async () => {
    const { stdout } = await run(process.execPath, [BIN, 'status'], { env: env() });
    const lines = stdout.trimEnd().split('\n');
    expect(lines.map((l) => l.split(/\s+/)[0])).toEqual(['NAME', 'broken', 'far', 'hourly', 'weekly']);
    expect(lines[1]).toMatch(/^broken\s+-\s+-\s+-\s+cannot read: .*500.*\s+-$/);
    expect(lines[3]).toMatch(/^hourly\s+local\s+2026-01-01T01:00:00Z/);
    const json = JSON.parse((await run(process.execPath, [BIN, 'status', '--json'], { env: env() })).stdout).snapshots;
    expect(json[0]).toMatchObject({ name: 'broken', read_error: expect.stringMatching(/500/) });
    expect(json[1].read_error).toBeUndefined();
  });
});
