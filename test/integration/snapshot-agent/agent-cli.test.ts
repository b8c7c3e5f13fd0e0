// `keyward plan/apply/status` with snapshot configs on a server without automated snapshots (the
// engine in oss edition): without an agent the plan fails naming `keyward snapshot-agent`; with
// the manifest's server.snapshotAddress at an agent, auth goes to the server and snapshot configs
// to the agent, a re-plan is empty and drift on the agent's configs is corrected.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runKeyward } from '../../support/keyward-in-process';
import { planJsonSchema } from '../../../src/reconcile/render-json';
import { api, ROOT_TOKEN, startTestEngine } from '../../support/engine';
import { startSnapshotAgent, type SnapshotAgent } from '../../../src/snapshot-agent/agent';
import { iamRole, manifest, serviceAccountKey } from '../reconcile/helpers';

const CONFIG = 'sys/storage/raft/snapshot-auto/config';
let engine: Awaited<ReturnType<typeof startTestEngine>>;
let agent: SnapshotAgent;
let dir: string;
const saved = { ...process.env };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kw-agent-cli-'));
  engine = await startTestEngine({ edition: 'oss' });
  agent = await startSnapshotAgent({ server: engine.url, listen: '127.0.0.1:0', state: join(dir, 'state'), env: { VAULT_TOKEN: ROOT_TOKEN } });
});
afterAll(async () => {
  process.env = saved;
  await agent.close();
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

function stack(snapshotAddress?: string) {
  return manifest({
    server: snapshotAddress ? { snapshotAddress } : {},
    authBackends: [{ path: 'cloud', type: 'cloud', config: { credentials: { secretRef: { env: 'CLOUD_CREDS' } } }, roles: [iamRole('web')] }],
    snapshotConfigs: [{ name: 'hourly', storage_type: 'local', interval: '1h', retain: 24, path_prefix: join(dir, 'snaps'), local_max_space: 100_000_000 }],
  });
}

test('without an agent the plan fails at plan time naming keyward snapshot-agent, and nothing is written', async () => {
  process.env.VAULT_ADDR = engine.url;
  process.env.VAULT_TOKEN = ROOT_TOKEN;
  process.env.CLOUD_CREDS = serviceAccountKey('k1');
  delete process.env.KEYWARD_SNAPSHOT_ADDR;
  const file = join(dir, 'plain.json');
  writeFileSync(file, JSON.stringify(stack()));
  const r = await runKeyward('plan', '--manifest', file);
  expect(r.code).toBe(1);
  expect(r.err).toMatch(/keyward engine 1\.19\.0\+keyward in oss edition.*keyward snapshot-agent --server/s);
  expect((await api(engine, 'GET', 'sys/auth')).body.data['cloud/']).toBeUndefined();
});

test('with server.snapshotAddress: auth to the server, configs to the agent; a re-plan is empty; drift is corrected; status reads the agent', async () => {
  process.env.VAULT_ADDR = engine.url;
  process.env.VAULT_TOKEN = ROOT_TOKEN;
  process.env.CLOUD_CREDS = serviceAccountKey('k1');
  const file = join(dir, 'agent.json');
  writeFileSync(file, JSON.stringify(stack(agent.url)));
  const applied = await runKeyward('apply', '--manifest', file, '--auto-approve');
  expect(applied.err).toBe('');
  expect(applied.code).toBe(0);
  expect((await api(engine, 'GET', 'sys/auth')).body.data['cloud/'].type).toBe('cloud');
  expect((await api(agent.url, 'GET', `${CONFIG}/hourly`)).body.data).toMatchObject({ interval: 3600, retain: 24 });
  expect((await runKeyward('plan', '--manifest', file, '--detailed-exitcode')).code).toBe(0);
  // The JSON plan names where the snapshot configs were read, and still matches its schema.
  const js = await runKeyward('plan', '--manifest', file, '--format', 'json');
  const parsed = planJsonSchema.safeParse(JSON.parse(js.out));
  expect(parsed.success).toBe(true);
  expect(JSON.parse(js.out).server).toEqual({ address: engine.url, snapshotAddress: agent.url });
  // Drift: someone changes the config on the agent by hand.
  expect(
    (await api(agent.url, 'POST', `${CONFIG}/hourly`, { body: { storage_type: 'local', interval: 60, retain: 2, path_prefix: join(dir, 'snaps'), local_max_space: 100_000_000 } }))
      .status,
  ).toBe(204);
  const drift = await runKeyward('plan', '--manifest', file, '--detailed-exitcode');
  expect(drift.code).toBe(2);
  expect(drift.out).toMatch(/hourly/);
  // A saved plan applies against the same two addresses (the plan file carries the agent's).
  const planFile = join(dir, 'drift.plan');
  expect((await runKeyward('plan', '--manifest', file, '--out', planFile)).code).toBe(0);
  delete process.env.VAULT_ADDR;
  expect((await runKeyward('apply', '--plan', planFile)).code).toBe(0);
  process.env.VAULT_ADDR = engine.url;
  expect((await api(agent.url, 'GET', `${CONFIG}/hourly`)).body.data).toMatchObject({ interval: 3600, retain: 24 });
  expect((await runKeyward('plan', '--manifest', file, '--detailed-exitcode')).code).toBe(0);
  const status = await runKeyward('status', '--snapshot-address', agent.url);
  expect(status.code).toBe(0);
  expect(status.out).toMatch(/^hourly\s+local\s/m);
});

test('a snapshot-only stack with VAULT_ADDR at the agent itself plans and applies', async () => {
  process.env.VAULT_ADDR = agent.url;
  process.env.VAULT_TOKEN = ROOT_TOKEN;
  const file = join(dir, 'only-snapshots.json');
  writeFileSync(
    file,
    JSON.stringify(manifest({ snapshotConfigs: [{ name: 'solo', storage_type: 'local', interval: '2h', path_prefix: join(dir, 'solo'), local_max_space: 100_000_000 }] })),
  );
  expect((await runKeyward('apply', '--manifest', file, '--auto-approve')).code).toBe(0);
  expect((await api(agent.url, 'GET', `${CONFIG}/solo`)).body.data).toMatchObject({ interval: 7200 });
  expect((await runKeyward('plan', '--manifest', file, '--detailed-exitcode')).code).toBe(0);
});

test('an agent that manages another server is refused at plan time: its snapshots would not be of this one', async () => {
  const other = await startTestEngine({ edition: 'oss' });
  const wrong = await startSnapshotAgent({ server: other.url, listen: '127.0.0.1:0', state: join(dir, 'wrong-state'), env: { VAULT_TOKEN: ROOT_TOKEN } });
  try {
    process.env.VAULT_ADDR = engine.url;
    process.env.VAULT_TOKEN = ROOT_TOKEN;
    process.env.CLOUD_CREDS = serviceAccountKey('k1');
    const file = join(dir, 'wrong.json');
    writeFileSync(file, JSON.stringify(stack(wrong.url)));
    const r = await runKeyward('plan', '--manifest', file);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/snapshot configs go to the keyward snapshot agent at .* which manages another cluster .*agent started with --server/s);
    expect(await wrong.state.list('config/')).toEqual([]);
  } finally {
    await wrong.close();
    await other.close();
  }
});
