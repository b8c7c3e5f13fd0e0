// The agent stands in for Vault Enterprise's snapshot-auto: it takes what Vault takes (not the
// embedded engine's stricter rules), names by Vault's rule \w(([\w-.]+)?\w)? (400 naming it, never
// a 500), locations compared after cleaning (so one config's retention cannot delete another's
// snapshots), autoload refused naming Enterprise (nothing here can load a snapshot); its answers
// to a Vault-named client in Vault's read and status shapes.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../src/engine/clock';
import { startSnapshotAgent, type SnapshotAgent } from '../../../src/snapshot-agent/agent';
import { api } from '../../support/engine';
import { CONTRACT_TOKEN, startVaultContract, type VaultContract } from '../../support/vault-contract/server';

const C = 'sys/storage/raft/snapshot-auto/config';
const S = 'sys/storage/raft/snapshot-auto/status';
let dir: string;
let bao: VaultContract;
let agent: SnapshotAgent;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kw-agent-rules-'));
  bao = await startVaultContract({ flavor: 'openbao' });
  agent = await startSnapshotAgent({
    server: bao.url,
    listen: '127.0.0.1:0',
    state: join(dir, 'state'),
    env: { VAULT_TOKEN: CONTRACT_TOKEN },
    clock: new ManualClock(Date.UTC(2026, 0, 1)),
  });
});
afterAll(async () => {
  await agent?.close();
  await bao?.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = (method: string, path: string, body?: unknown) => api(agent.url, method, path, { token: CONTRACT_TOKEN, body });
const local = (path_prefix: string) => ({ storage_type: 'local', interval: 3600, path_prefix, local_max_space: 1_000_000 });
const gcs = (extra: Record<string, unknown> = {}) => ({ storage_type: 'google-gcs', interval: 3600, path_prefix: 'snaps', google_gcs_bucket: 'b', ...extra });

describe("names by Vault's rule", () => {
  it.each(['.x', '-x', 'x-', 'x.', '-'])('%s is refused with 400 naming the rule', async (name) => {
    const r = await call('POST', `${C}/${name}`, local(join(dir, `n${name}`)));
    expect({ status: r.status, errors: r.body?.errors }).toEqual({ status: 400, errors: [expect.stringMatching(/name ".*" is invalid.*\\w/)] });
    expect((await call('GET', `${C}/${name}`)).status).toBe(400);
  });
  it.each(['x', 'a.b-c_d', '_x_', '9'])('%s is taken', async (name) => {
    expect((await call('POST', `${C}/${name}`, local(join(dir, `ok-${name}`)))).status).toBe(204);
    expect((await call('DELETE', `${C}/${name}`)).status).toBe(204);
  });
});

it('locations collide after cleaning: /x/./y and /x/y, a//b and a/b', async () => {
  expect((await call('POST', `${C}/l1`, local(join(dir, 'x/./y')))).status).toBe(204);
  const r = await call('POST', `${C}/l2`, local(join(dir, 'x') + '/y'));
  expect(r.status).toBe(400);
  expect(r.body.errors.join()).toMatch(/collide with config l1/);
  expect((await call('POST', `${C}/g1`, gcs({ google_gcs_bucket: 'loc', path_prefix: 'a//b' }))).status).toBe(204);
  expect((await call('POST', `${C}/g2`, gcs({ google_gcs_bucket: 'loc', path_prefix: 'a/b' }))).status).toBe(400);
  for (const n of ['l1', 'g1']) await call('DELETE', `${C}/${n}`);
});

it('autoload_enabled true is refused naming Enterprise; false is taken', async () => {
  const r = await call('POST', `${C}/al`, gcs({ google_gcs_bucket: 'al', autoload_enabled: true }));
  expect(r.status).toBe(400);
  expect(r.body.errors.join()).toMatch(/autoload_enabled.*Vault Enterprise/);
  expect((await call('GET', `${C}/al`)).status).toBe(404);
  expect((await call('POST', `${C}/al`, gcs({ google_gcs_bucket: 'al', autoload_enabled: false }))).status).toBe(204);
  await call('DELETE', `${C}/al`);
});

it("takes what Vault takes: a GCS or Azure path_prefix without a trailing '/' (an engine-only rule)", async () => {
  const r = await call('POST', `${C}/slash`, gcs({ google_gcs_bucket: 'slash', path_prefix: 'snaps' }));
  expect({ status: r.status, errors: r.body?.errors }).toEqual({ status: 204, errors: undefined });
  const az = { storage_type: 'azure-blob', interval: 3600, path_prefix: 'snaps', azure_container_name: 'slash', azure_account_name: 'acc', azure_account_key: 'k' };
  expect((await call('POST', `${C}/slash-az`, az)).status).toBe(204);
  for (const n of ['slash', 'slash-az']) await call('DELETE', `${C}/${n}`);
});

it("reads back in Vault's shapes: google_endpoint false when unset, no invented azure_auth_mode, status blanks from the start", async () => {
  expect((await call('POST', `${C}/g`, gcs())).status).toBe(204);
  const g = await call('GET', `${C}/g`);
  expect(g.body.data.google_endpoint).toBe(false);
  expect((await call('POST', `${C}/ge`, gcs({ path_prefix: 'other', google_endpoint: 'https://gcs.example' }))).status).toBe(204);
  expect((await call('GET', `${C}/ge`)).body.data.google_endpoint).toBe('https://gcs.example');
  expect(
    (
      await call('POST', `${C}/az`, {
        storage_type: 'azure-blob',
        interval: 3600,
        path_prefix: 'snaps',
        azure_container_name: 'c',
        azure_account_name: 'acc',
        azure_account_key: 'k',
      })
    ).status,
  ).toBe(204);
  const az = await call('GET', `${C}/az`);
  expect(az.body.data).not.toHaveProperty('azure_auth_mode');
  expect(az.body.data).not.toHaveProperty('azure_account_key');
  const st = await call('GET', `${S}/g`);
  expect(st.body.data).toEqual({
    consecutive_errors: 0,
    last_snapshot_start: '',
    last_snapshot_end: '',
    last_snapshot_error: '',
    last_snapshot_url: '',
    snapshot_start: '',
    snapshot_url: '',
    next_snapshot_start: '2026-01-01T01:00:00Z',
  });
  for (const n of ['g', 'ge', 'az']) await call('DELETE', `${C}/${n}`);
});

it("never names keyward's fields to a Vault-named client", async () => {
  for (const body of [
    { storage_type: 'azure-blob', interval: 3600, path_prefix: 'p', azure_container_name: 'c' },
    { storage_type: 'aws-s3', interval: 3600, path_prefix: 'p' },
    { storage_type: 'google-gcs', interval: 3600, path_prefix: 'p', google_gcs_bucket: 'b', google_service_account_key: 'not json' },
    { storage_type: 'cloudtwo-store', interval: 3600, path_prefix: 'p' },
  ]) {
    const r = await call('POST', `${C}/e`, body);
    expect(r.status).toBe(400);
    expect(r.text).not.toMatch(/cloud(one|two|three)/);
  }
});
