// `keyward import` in a namespace (issue 40): the generated app carries every server setting the
// import was given (namespace, snapshot address, plugin name), holds the mount and the snapshot
// configs in one app, and plans empty against the server it was read from (the embedded engine).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Engine } from '../../../src/engine/engine';
import { api, ROOT_TOKEN, startTestEngine } from '../../support/engine';
import { runKeyward } from '../../support/keyward-in-process';

const REPO = resolve(__dirname, '../../..');
let engine: Engine;
let dir: string;
const saved = { ...process.env };

beforeAll(async () => {
  engine = await startTestEngine();
  dir = mkdtempSync(join(REPO, '.import-ns-'));
  Object.assign(process.env, { VAULT_TOKEN: ROOT_TOKEN, VAULT_ADDR: engine.url });
  delete process.env.VAULT_NAMESPACE;
  delete process.env.KEYWARD_PLAN_ONLY;
});
afterAll(async () => {
  process.env = saved;
  rmSync(dir, { recursive: true, force: true });
  await engine.close();
});

test('import --mount gcp --snapshots --namespace platform: one app, in the namespace, that plans empty', async () => {
  expect((await api(engine, 'POST', 'sys/namespaces/platform')).status).toBeLessThan(300);
  expect((await api(engine, 'POST', 'sys/auth/gcp', { namespace: 'platform', body: { type: 'cloud' } })).status).toBeLessThan(300);
  expect((await api(engine, 'POST', 'auth/gcp/config', { namespace: 'platform', body: { iam_alias: 'unique_id' } })).status).toBeLessThan(300);
  expect(
    (await api(engine, 'POST', 'auth/gcp/role/web', { namespace: 'platform', body: { type: 'iam', bound_service_accounts: 'web@p.iam.gserviceaccount.com' } })).status,
  ).toBeLessThan(300);
  const snapDir = join(dir, 'snaps');
  expect(
    (
      await api(engine, 'POST', 'sys/storage/raft/snapshot-auto/config/nightly', {
        body: { storage_type: 'local', interval: 86400, path_prefix: snapDir, local_max_space: 100000 },
      })
    ).status,
  ).toBeLessThan(300);

  const app = join(dir, 'main.ts');
  const r = await runKeyward('import', '--mount', 'gcp', '--snapshots', '--namespace', 'platform', '--module', join(REPO, 'constructs'), '--out', app);
  expect({ code: r.code, out: r.code === 0 ? '' : r.all }).toEqual({ code: 0, out: '' });
  const code = readFileSync(app, 'utf8');
  expect(code).toContain(`new KeywardServer(stack, 'server', { namespace: "platform" });`);
  expect(code).toContain('new CloudAuthBackend(stack, "gcp"');
  expect(code).toContain('new SnapshotAutoConfig(stack, "snapshot-nightly"');

  // The generated app, synthesized and planned against the server it came from: nothing to do.
  const out = join(dir, 'cdktf.out');
  const synth = spawnSync(process.execPath, ['-r', 'tsx/cjs', app], { cwd: REPO, env: { ...process.env, CDKTF_OUTDIR: out }, encoding: 'utf8', timeout: 120_000 });
  expect({ status: synth.status, err: synth.status === 0 ? '' : synth.stderr.slice(-2000) }).toEqual({ status: 0, err: '' });
  const plan = await runKeyward('plan', '--dir', out, '--record', 'keyward', '--detailed-exitcode');
  expect({ code: plan.code, out: plan.code === 0 ? '' : plan.all }).toEqual({ code: 0, out: '' });
}, 180_000);
