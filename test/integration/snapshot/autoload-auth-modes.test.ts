// The engine's handling of Vault 1.18–1.21 snapshot fields it cannot act on: autoload_enabled
// (validated like Vault, stored and returned; status carries the loaded_* fields blank) and the
// Azure managed/environment credential modes (stored and returned as written; served through
// @azure/identity, see azure-identity.test.ts).

import { ManualClock } from '../../../src/engine/clock';
import { api, startTestEngine } from '../../support/engine';

const clock = new ManualClock(Date.UTC(2026, 0, 1));
let engine: Awaited<ReturnType<typeof startTestEngine>>;
beforeAll(async () => {
  engine = await startTestEngine({ clock, edition: 'enterprise' });
});
afterAll(() => engine?.close());

const cfg = (n: string) => `sys/storage/raft/snapshot-auto/config/${n}`;
const S3 = { storage_type: 'cloudone-store', interval: 3600, path_prefix: 'raft/', cloudone_bucket: 'b', cloudone_region: 'r' };

test('autoload_enabled: stored and returned; refused for local storage and for a second config', async () => {
  expect((await api(engine, 'POST', cfg('first'), { body: { ...S3, autoload_enabled: true } })).status).toBe(204);
  expect((await api(engine, 'GET', cfg('first'))).body.data.autoload_enabled).toBe(true);
  const second = await api(engine, 'POST', cfg('second'), { body: { ...S3, path_prefix: 'other/', autoload_enabled: true } });
  expect(second.status).toBe(400);
  expect(second.body.errors.join(' ')).toMatch(/autoload_enabled is already set on config first/);
  expect((await api(engine, 'POST', cfg('first'), { body: { retain: 4 } })).status).toBe(204);
  const local = await api(engine, 'POST', cfg('loc'), {
    body: { storage_type: 'local', interval: 60, path_prefix: '/tmp/kw-autoload', local_max_space: 1000, autoload_enabled: true },
  });
  expect(local.status).toBe(400);
  expect(local.body.errors.join(' ')).toMatch(/autoload_enabled is not supported for storage_type=local/);
  // Turned off on the first, it may go on another.
  await api(engine, 'POST', cfg('first'), { body: { autoload_enabled: false } });
  expect((await api(engine, 'POST', cfg('second'), { body: { ...S3, path_prefix: 'other/', autoload_enabled: true } })).status).toBe(204);
  const status = (await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/status/second')).body.data;
  expect(status).toMatchObject({ loaded_snapshot_id: '', loaded_snapshot_status: '', loaded_snapshot_expires_at: '', loading_error: '' });
  expect(status.next_snapshot_start).toBe('2026-01-01T01:00:00Z');
  expect((await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/status/first')).body.data).not.toHaveProperty('loading_error');
  for (const n of ['first', 'second']) await api(engine, 'DELETE', cfg(n));
});

test.each([
  ['managed', { cloudthree_account_name: 'acct', cloudthree_client_id: '00000000-0000-0000-0000-00000000c1d0' }],
  ['environment', {}],
])('cloudthree_auth_mode=%s: stored and returned as written', async (mode, extra) => {
  // No attempt runs here (that would ask this machine's identity endpoints): azure-identity.test.ts
  // stores snapshots in these modes through a loopback identity endpoint.
  const name = `az-${mode}`;
  const body = { storage_type: 'cloudthree-store', interval: 3600, path_prefix: 'raft/', cloudthree_container_name: 'c', cloudthree_auth_mode: mode, ...extra };
  const w = await api(engine, 'POST', cfg(name), { body });
  expect([w.status, w.text]).toEqual([204, '']);
  expect((await api(engine, 'GET', cfg(name))).body.data).toMatchObject({ cloudthree_auth_mode: mode, ...extra });
  await api(engine, 'DELETE', cfg(name));
});
