// --state on an object-store prefix, through the engine's targets and each store's own
// conditional write: the GCS emulator (ifGenerationMatch=0) and azurite (If-None-Match: *) hold
// configs, status and leases, so two agents take each snapshot once and a restarted agent keeps
// everything; s3rver, which ignores If-None-Match on writes, is refused at start.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openState } from '../../../src/snapshot-agent/open-state';
import type { StateStore } from '../../../src/snapshot-agent/state-store';
import { api } from '../../support/engine';
import { AZURITE_ACCOUNT, AZURITE_KEY, startAzurite, startGcs, startS3, type RunningStore } from '../../support/object-stores';
import { AGENT_CONFIG, AGENT_STATUS, snapshotsIn, startAgentHarness, T0, type AgentHarness } from '../../support/snapshot-agent';

let gcs: RunningStore, azure: RunningStore, s3: RunningStore;
beforeAll(async () => {
  [gcs, azure, s3] = await Promise.all([startGcs('agent-state'), startAzurite('agent-state'), startS3('agent-state')]);
});
afterAll(async () => {
  await Promise.all([gcs, azure, s3].filter((s) => s).map((s) => s.close()));
});

const ns = (s: number) => `vault-snapshot-${BigInt(T0 + s * 1000) * 1_000_000n}.snap`;
const locations = () => ({
  gcs: `gs://agent-state/agents/${Math.random().toString(36).slice(2, 8)}?endpoint=${encodeURIComponent(String(gcs.fields.cloudtwo_endpoint))}&disable_tls=true`,
  azure: `azblob://${AZURITE_ACCOUNT}/agent-state/agents/${Math.random().toString(36).slice(2, 8)}?endpoint=${encodeURIComponent(String(azure.fields.cloudthree_endpoint))}`,
});
const ENV = { AZURE_STORAGE_KEY: AZURITE_KEY };

describe('--state on a directory', () => {
  it('stores, lists and deletes; a key is created exclusively once', async () => {
    const root = await mkdtemp(join(tmpdir(), 'kw-dir-state-'));
    const store = await openState(join(root, 'state'));
    try {
      await conformance(store);
    } finally {
      await store.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});

/** What every --state store does (directory and object stores alike). */
async function conformance(store: StateStore): Promise<void> {
  await store.put('config/a', Buffer.from('1'));
  await store.put('config/a', Buffer.from('2'));
  await store.put('status/a', Buffer.from('s'));
  expect((await store.get('config/a'))?.toString()).toBe('2');
  expect(await store.get('config/b')).toBeUndefined();
  expect(await store.list('config/')).toEqual(['config/a']);
  expect(await store.createExclusive('lease/a/1-00000000', Buffer.from('x'))).toBe(true);
  expect(await store.createExclusive('lease/a/1-00000000', Buffer.from('y'))).toBe(false);
  expect((await store.get('lease/a/1-00000000'))?.toString()).toBe('x');
  const racing = await Promise.all(Array.from({ length: 5 }, (_, i) => store.createExclusive('lease/a/1-00000001', Buffer.from(String(i)))));
  expect(racing.filter(Boolean)).toHaveLength(1);
  expect(await store.list('lease/a/1-')).toEqual(['lease/a/1-00000000', 'lease/a/1-00000001']);
  await store.delete('config/a');
  await store.delete('config/a');
  expect(await store.list('config/')).toEqual([]);
  await expect(store.put('../escape', Buffer.from('x'))).rejects.toThrow(/invalid state key/);
}

describe.each(['gcs', 'azure'] as const)('--state on %s', (kind) => {
  let h: AgentHarness;
  let store: StateStore | undefined;
  beforeEach(async () => {
    h = await startAgentHarness();
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    await h.close();
  });

  it('stores, lists and deletes; a key is created exclusively once', async () => {
    store = await openState(locations()[kind], ENV);
    await conformance(store);
  });

  it('two agents on one prefix take each snapshot once (ten intervals); a restarted agent keeps configs and status', async () => {
    const state = locations()[kind];
    const a = await h.agent({ state, env: { ...ENV, VAULT_TOKEN: 'root-test-token' } });
    const b = await h.agent({ state, env: { ...ENV, VAULT_TOKEN: 'root-test-token' } });
    const dir = join(h.root, 'out');
    expect(
      (await api(a.url, 'POST', `${AGENT_CONFIG}/a`, { body: { storage_type: 'local', interval: 10, retain: 100, path_prefix: dir, local_max_space: 100_000_000 } })).status,
    ).toBe(204);
    await h.advance(100_000);
    expect(await snapshotsIn(dir)).toEqual(Array.from({ length: 10 }, (_, i) => ns(10 * (i + 1))));
    expect(a.archivesRead() + b.archivesRead()).toBe(10);
    const before = (await api(a.url, 'GET', `${AGENT_STATUS}/a`)).body.data;
    await a.close();
    await b.close();
    const c = await h.agent({ state, env: { ...ENV, VAULT_TOKEN: 'root-test-token' } });
    expect((await api(c.url, 'GET', `${AGENT_STATUS}/a`)).body.data).toEqual(before);
    await h.advance(10_000);
    expect((await snapshotsIn(dir)).length).toBe(11);
  }, 120_000);
});

it('an S3-compatible store that ignores conditional writes (s3rver) is refused at start', async () => {
  const saved = { ...process.env };
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  try {
    const endpoint = encodeURIComponent(String(s3.fields.cloudone_endpoint));
    await expect(openState(`s3://agent-state/agents?endpoint=${endpoint}&force_path_style=true&disable_tls=true`)).rejects.toThrow(/does not honour conditional writes/);
  } finally {
    process.env = saved;
  }
});
