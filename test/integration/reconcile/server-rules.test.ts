// Rules of the server checked when the plan reads it, not at apply: against keyward's engine, a
// cloudtwo-store path_prefix without a trailing "/" (the engine refuses it, Vault accepts it) fails
// `keyward plan` and the provider's plan naming the field, with nothing written. Real engine.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from '../../../src/engine/engine';
import { keywardProvider, type KeywardProviderContext } from '../../../src/terraform/keyward-provider';
import { ROOT_TOKEN, startTestEngine } from '../../support/engine';
import { runKeyward } from '../../support/keyward-in-process';
import { recordRequests, TerraformDriver } from '../../support/terraform-driver';
import { manifest } from './helpers';

let engine: Engine;
let work: string;
const saved = { ...process.env };
beforeAll(async () => {
  engine = await startTestEngine({ edition: 'enterprise' });
  work = mkdtempSync(join(tmpdir(), 'keyward-server-rules-'));
  process.env.VAULT_ADDR = engine.url;
  process.env.VAULT_TOKEN = ROOT_TOKEN;
  process.env.RULES_GCS_KEY = JSON.stringify({ type: 'service_account', client_email: 's@p.iam.gserviceaccount.com' });
});
afterAll(async () => {
  process.env = saved;
  await engine.close();
  rmSync(work, { recursive: true, force: true });
});

const gcs = { name: 'rules-gcs', storage_type: 'cloudtwo-store' as const, interval: '24h', path_prefix: 'nightly', cloudtwo_bucket: 'b' };

test('keyward plan: the engine-only rule fails the plan, naming object and field', async () => {
  const file = join(work, 'm.json');
  writeFileSync(file, JSON.stringify(manifest({ snapshotConfigs: [{ ...gcs, cloudtwo_service_account_key: { secretRef: { env: 'RULES_GCS_KEY' } } }] })));
  const r = await runKeyward('plan', '--manifest', file);
  expect(r.code).toBe(1);
  expect(r.err).toContain(
    `the server at ${engine.url} would refuse this value:\n  snapshot/rules-gcs: path_prefix must end with "/" for storage_type=cloudtwo-store (got "nightly") (a rule of keyward's embedded engine; Vault accepts it)`,
  );
  const apply = await runKeyward('apply', '--manifest', file, '--auto-approve');
  expect(apply.code).toBe(1);
  expect(apply.out).not.toContain('Apply');
});

test("the provider's plan: the same rule as an error on path_prefix, nothing written", async () => {
  const provider = keywardProvider({ env: { VAULT_ADDR: engine.url, VAULT_TOKEN: ROOT_TOKEN, RULES_GCS_KEY: process.env.RULES_GCS_KEY } });
  const d = await TerraformDriver.configure<KeywardProviderContext>(provider, 'keyward_snapshot_auto_config', { fingerprint_salt: 'rules-salt-0123456789' });
  const sent = recordRequests(d.ctx.client!);
  const p = await d.plan(null, d.config({ ...gcs, cloudtwo_service_account_key_env: 'RULES_GCS_KEY' }));
  expect(p.diagnostics).toEqual([expect.objectContaining({ severity: 'error', attribute: ['path_prefix'], summary: expect.stringContaining('path_prefix must end with "/"') })]);
  expect(sent.filter((s) => !s.startsWith('GET '))).toEqual([]);
  await provider.stop!();
});
