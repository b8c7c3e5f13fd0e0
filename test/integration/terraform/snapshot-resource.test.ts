// keyward_snapshot_auto_config and keyward_exclusive_snapshot_configs through the plugin contract
// against the real engine (enterprise edition, manual clock so no snapshot runs).

import { ManualClock } from '../../../src/engine/clock';
import type { Engine } from '../../../src/engine/engine';
import type { ObjectValue } from '../../../src/terraform/plugin/contract';
import { api, ROOT_TOKEN, startTestEngine } from '../../support/engine';
import { providerSession } from '../../support/provider-session';

const CONFIG = 'sys/storage/raft/snapshot-auto/config';
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY-0001';

let engine: Engine;
beforeAll(async () => {
  engine = await startTestEngine({ clock: new ManualClock(Date.UTC(2026, 0, 1)), edition: 'enterprise' });
});
afterAll(async () => {
  await engine.close();
});

const driver = (typeName: string, env: Record<string, string> = {}) =>
  providerSession({ env: { VAULT_ADDR: engine.url, VAULT_TOKEN: ROOT_TOKEN, ...env }, typeName, config: { fingerprint_salt: 'tf-snap-salt-0123456789' } });

const local = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  storage_type: 'local',
  interval: '1h',
  path_prefix: `/tmp/kw-tf-snap-${name}`,
  local_max_space: 1_000_000,
  ...extra,
});

test('create, refresh and plan empty; "1h" vs "3600" plans nothing; out-of-band change plans an update apply fixes', async () => {
  const { d, writes, reset, close } = await driver('keyward_snapshot_auto_config');
  const config = d.config(local('hourly'));
  const { state } = await d.deploy(null, config);
  expect((await api(engine, 'GET', `${CONFIG}/hourly`)).body.data).toMatchObject({ interval: 3600, local_max_space: 1_000_000 });
  reset();
  expect((await d.deploy(state, config)).plan.changes).toEqual([]);
  expect((await d.plan((await d.read(state!))!, d.config(local('hourly', { interval: '3600' })))).changes).toEqual([]);
  expect(writes()).toEqual([]);

  await api(engine, 'POST', `${CONFIG}/hourly`, { body: { retain: 9, interval: 60 } });
  const drift = await d.deploy(state, config);
  expect(drift.plan.changes.sort()).toEqual(['interval', 'retain']);
  expect((await api(engine, 'GET', `${CONFIG}/hourly`)).body.data).toMatchObject({ interval: 3600, retain: 1 });
  expect((await d.deploy(drift.state, config)).plan.changes).toEqual([]);
  await close();
});

test('a storage_type or name change replaces; import by name then the same declaration plans nothing', async () => {
  const { d, close } = await driver('keyward_snapshot_auto_config');
  const { state } = await d.deploy(null, d.config(local('swap')));
  const p = await d.plan((await d.read(state!))!, d.config({ name: 'swap', storage_type: 'cloudtwo-store', interval: '1h', path_prefix: 'p/', cloudtwo_bucket: 'b' }));
  expect(p.requiresReplace).toEqual(['storage_type']);

  await api(engine, 'POST', `${CONFIG}/byhand`, { body: { storage_type: 'local', interval: '24h', path_prefix: '/tmp/kw-tf-hand', local_max_space: 5000, retain: 3 } });
  const imported = (await d.read(await d.handler.import(d.ctx, 'byhand')))!;
  const again = await d.plan(imported, d.config(local('byhand', { interval: '24h', path_prefix: '/tmp/kw-tf-hand', local_max_space: 5000, retain: 3 })));
  expect(again.changes).toEqual([]);
  await close();
});

test('a replace plans its create half as Terraform does (no prior, the old config still there) and applies; retain_on_destroy refuses it at plan', async () => {
  const { d, close } = await driver('keyward_snapshot_auto_config');
  const { state } = await d.deploy(null, d.config(local('swapped')));
  const gcs = { name: 'swapped', storage_type: 'cloudtwo-store', interval: '1h', path_prefix: 'p/', cloudtwo_bucket: 'b' };
  const replaced = await d.deploy(state, d.config(gcs));
  expect(replaced.plan.requiresReplace).toEqual(['storage_type']);
  expect((await api(engine, 'GET', `${CONFIG}/swapped`)).body.data).toMatchObject({ storage_type: 'cloudtwo-store', cloudtwo_bucket: 'b' });
  // Another name is another object: its create half is checked like any create.
  await api(engine, 'POST', `${CONFIG}/other`, { body: { storage_type: 'local', interval: '1h', path_prefix: '/tmp/kw-tf-other', local_max_space: 5000 } });
  const renamed = await d.plan(replaced.state, d.config({ ...gcs, name: 'other' }));
  const half = await d.plan(null, d.config({ ...gcs, name: 'other' }), renamed.plannedPrivate);
  expect(half.diagnostics).toEqual([expect.objectContaining({ severity: 'error', summary: 'Snapshot config "other" already exists on the server' })]);
  // Retained: the destroy half only forgets it, so the create half would find it.
  const kept = await d.deploy(replaced.state, d.config({ ...gcs, retain_on_destroy: true }));
  const first = await d.plan(kept.state, d.config(local('swapped', { retain_on_destroy: true })));
  expect(first.requiresReplace).toEqual(['storage_type']);
  const second = await d.plan(null, d.config(local('swapped', { retain_on_destroy: true })), first.plannedPrivate);
  expect(second.diagnostics).toEqual([expect.objectContaining({ severity: 'error', summary: 'Snapshot config "swapped" cannot be replaced: retain_on_destroy keeps it' })]);
  await close();
});

test('secret from the environment: fingerprint in state, never the value; unset variable is a plan error and nothing is written', async () => {
  const env: Record<string, string> = { S3_SECRET: SECRET };
  const { d, writes, reset, close } = await driver('keyward_snapshot_auto_config', env);
  const config = d.config({
    name: 's3',
    storage_type: 'cloudone-store',
    interval: '1h',
    path_prefix: 'snaps/',
    cloudone_bucket: 'b',
    cloudone_region: 'eu-1',
    cloudone_access_key_id: 'AKIA',
    cloudone_secret_access_key_env: 'S3_SECRET',
  });
  const created = await d.deploy(null, config);
  expect(created.state!.cloudone_secret_access_key_fingerprint).toMatch(/^sha256:/);
  const same = await d.deploy(created.state, config);
  expect(same.plan.changes).toEqual([]);
  d.ctx.env.S3_SECRET = SECRET + 'rotated';
  const rotated = await d.deploy(created.state, config);
  expect(rotated.plan.changes).toEqual(['cloudone_secret_access_key_fingerprint']);
  delete d.ctx.env.S3_SECRET;
  reset();
  const unset = await d.plan((await d.read(rotated.state!))!, config);
  expect(unset.diagnostics).toEqual([expect.objectContaining({ summary: 'S3_SECRET is not set', attribute: ['cloudone_secret_access_key_env'] })]);
  expect(writes()).toEqual([]);
  const text = JSON.stringify([created, same, rotated, unset]);
  expect(text).not.toContain(SECRET);
  await close();
});

test('exclusive snapshot configs: a hand-made config appears on refresh, plans as removed, apply deletes it', async () => {
  const { d: snap, close: closeSnap } = await driver('keyward_snapshot_auto_config');
  await snap.deploy(null, snap.config(local('kept')));
  const { d, close } = await driver('keyward_exclusive_snapshot_configs');
  const config = d.config({ names: ['kept', 'hourly', 'swap', 's3', 'byhand'] });
  const { state } = await d.deploy(null, config);
  expect((await d.deploy(state, config)).plan.changes).toEqual([]);
  await api(engine, 'POST', `${CONFIG}/rogue`, { body: { storage_type: 'local', interval: 60, path_prefix: '/tmp/kw-rogue', local_max_space: 1 } });
  const refreshed = (await d.read(state!))!;
  expect(refreshed.names as string[]).toContain('rogue');
  const r = await d.deploy(state, config);
  expect(r.plan.changes).toEqual(['names']);
  expect((await api(engine, 'GET', `${CONFIG}/rogue`)).status).toBe(404);
  expect((await api(engine, 'GET', `${CONFIG}/kept`)).status).toBe(200);
  expect((r.state as ObjectValue).names).toEqual(config.names);
  await close();
  await closeSnap();
});

test('creating a config the server already holds is an error that says how to import it, at plan and at apply; nothing is overwritten', async () => {
  const { d, writes, reset, close } = await driver('keyward_snapshot_auto_config');
  await api(engine, 'POST', `${CONFIG}/taken`, { body: { storage_type: 'local', interval: '6h', path_prefix: '/tmp/kw-tf-taken', local_max_space: 7000 } });
  const config = d.config(local('taken'));
  const p = await d.plan(null, config);
  expect(p.diagnostics).toEqual([
    expect.objectContaining({
      severity: 'error',
      summary: 'Snapshot config "taken" already exists on the server',
      detail: expect.stringMatching(/terraform import keyward_snapshot_auto_config\.<name> taken.*import \{ to = keyward_snapshot_auto_config\.<name> {2}id = "taken" \}/s),
      attribute: ['name'],
    }),
  ]);
  // Made between plan and apply: apply refuses too.
  const fresh = await d.plan(null, d.config(local('racing')));
  await api(engine, 'POST', `${CONFIG}/racing`, { body: { storage_type: 'local', interval: '6h', path_prefix: '/tmp/kw-tf-racing', local_max_space: 7000 } });
  reset();
  await expect(d.apply(null, fresh.planned, d.config(local('racing')))).rejects.toThrow('Snapshot config "racing" already exists on the server');
  expect(writes()).toEqual([]);
  expect((await api(engine, 'GET', `${CONFIG}/taken`)).body.data).toMatchObject({ interval: 21600, local_max_space: 7000 });
  await close();
});
