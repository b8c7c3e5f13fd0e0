// keyward import: the generated construct code type-checks, synthesizes, and applied back to the
// same server plans no changes (secrets, unreadable, are written once through their variables).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { VaultClient } from '../../../src/client/vault-client';
import { applyPlan } from '../../../src/reconcile/apply';
import { desiredFromManifest } from '../../../src/reconcile/desired';
import { mountCode, readMountForImport, readSnapshotsForImport, snapshotsCode } from '../../../src/reconcile/import-code';
import { makePlan } from '../../../src/reconcile/plan';
import { emptyRecord } from '../../../src/reconcile/record';
import { synthesizeImported } from './helpers';
import { api, ROOT_TOKEN, startTestEngine } from '../../support/engine';
import type { Engine } from '../../../src/engine/engine';

const ROOT = resolve(__dirname, '../../..');
let engine: Engine;
beforeAll(async () => {
  engine = await startTestEngine({ edition: 'enterprise' });
});
afterAll(async () => {
  await engine.close();
});

test('import output compiles and, applied back, plans no changes', async () => {
  const snapDir = mkdtempSync(join(tmpdir(), 'keyward-import-snap-'));
  await api(engine, 'POST', 'sys/auth/legacy', { body: { type: 'cloud', description: 'adopt me' } });
  await api(engine, 'POST', 'auth/legacy/config', { body: { iam_alias: 'unique_id', vm_metadata: 'zone,instance_id', custom_endpoint: { iam: 'https://iam.internal:8443' } } });
  await api(engine, 'POST', 'auth/legacy/role/web', {
    body: { type: 'iam', bound_service_accounts: 'b@p,a@p', token_ttl: '1h', token_policies: 'web', token_bound_cidrs: '10.0.0.9', policies: 'legacy' },
  });
  await api(engine, 'POST', 'auth/legacy/role/batch', {
    body: { type: 'vm', bound_zones: 'europe-west1-b', bound_labels: 'env:prod,tier:batch', add_group_aliases: true, token_type: 'service' },
  });
  await api(engine, 'POST', 'sys/storage/raft/snapshot-auto/config/hourly', {
    body: { storage_type: 'local', interval: '1h', retain: 4, path_prefix: snapDir, local_max_space: 5000000 },
  });
  await api(engine, 'POST', 'sys/storage/raft/snapshot-auto/config/offsite', {
    body: {
      storage_type: 'cloudone-store',
      interval: 86400,
      path_prefix: 'raft/',
      file_prefix: 'prod',
      cloudone_bucket: 'b',
      cloudone_region: 'r',
      cloudone_access_key_id: 'AK',
      cloudone_secret_access_key: 'SK-original',
    },
  });

  const client = new VaultClient({ address: engine.url, token: ROOT_TOKEN });
  const constructsModule = join(ROOT, 'constructs');
  const dir = mkdtempSync(join(tmpdir(), 'keyward-import-'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'mount.ts'), mountCode(await readMountForImport(client, 'legacy'), { module: constructsModule, stackName: 'legacy' }));
  writeFileSync(join(dir, 'snapshots.ts'), snapshotsCode(await readSnapshotsForImport(client), { module: constructsModule, stackName: 'snaps' }));
  expect(readFileSync(join(dir, 'mount.ts'), 'utf8')).toContain('CloudAuthRole.vm(stack, "legacy-batch"');
  expect(readFileSync(join(dir, 'snapshots.ts'), 'utf8')).toContain('sensitive: true');

  // Compiles (strict), against the real construct library.
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  execFileSync(
    process.execPath,
    [
      tsc,
      '--noEmit',
      '--strict',
      '--skipLibCheck',
      '--esModuleInterop',
      '--target',
      'es2022',
      '--module',
      'commonjs',
      '--types',
      'node',
      join(dir, 'mount.ts'),
      join(dir, 'snapshots.ts'),
    ],
    { cwd: dir, stdio: 'pipe' },
  );

  // Synthesizes, and the manifests apply back with no change.
  const env = { ...process.env, TF_VAR_offsite_cloudone_secret_access_key: 'SK-original', CHECKPOINT_DISABLE: '1' };
  for (const f of ['mount.ts', 'snapshots.ts']) {
    const desired = desiredFromManifest(synthesizeImported(dir, f, env), env);
    const { plan } = await makePlan(client, desired, emptyRecord());
    const changes = plan.objects.filter((o) => o.action !== 'no-op');
    // Only unreadable secrets may be written on adoption; every readable field already matches.
    expect(changes.flatMap((o) => o.changes.filter((c) => !c.sensitive))).toEqual([]);
    const result = await applyPlan(client, desired, emptyRecord(), plan, { env });
    expect((result.verify?.objects ?? []).filter((o) => o.action !== 'no-op')).toEqual([]);
    const again = await makePlan(client, desired, result.record);
    expect(again.plan.objects.filter((o) => o.action !== 'no-op')).toEqual([]);
  }
  await client.close();
}, 180_000);
