// Upgrade safety (issue 40): a keyward record and a Terraform state written by the release before
// the one-decision change (main at 2db6105, fixtures in test/fixtures/upgrade-2db6105, made by the
// make-fixtures.test.ts.txt beside them run in a checkout of that commit) plan empty after it:
// `keyward plan` with the old record, the provider's plan from the old state (after the refresh
// Terraform does first), and the PR plan with the old state as the record.

import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Engine } from '../../../src/engine/engine';
import type { ObjectValue } from '../../../src/terraform/plugin/contract';
import { keywardProvider, type KeywardProviderContext } from '../../../src/terraform/keyward-provider';
import { ROOT_TOKEN, startTestEngine } from '../../support/engine';
import { runKeyward } from '../../support/keyward-in-process';
import { TerraformDriver } from '../../support/terraform-driver';

const FIXTURES = resolve(__dirname, '../../fixtures/upgrade-2db6105');
const fixture = (f: string) => JSON.parse(readFileSync(join(FIXTURES, f), 'utf8')) as Record<string, unknown>;
const S3 = 'upgrade-fixture-s3-secret';
const tf = fixture('terraform-config.json') as { backend: Record<string, unknown>; snapshot: Record<string, unknown>; salt: string };

let engine: Engine;
let dir: string;
const saved = { ...process.env };
beforeAll(async () => {
  engine = await startTestEngine();
  dir = mkdtempSync(join(tmpdir(), 'keyward-upgrade-'));
  Object.assign(process.env, { VAULT_ADDR: engine.url, VAULT_TOKEN: ROOT_TOKEN, KW_UP_S3: S3 });
  delete process.env.VAULT_NAMESPACE;
  delete process.env.KEYWARD_PLAN_ONLY;
});
afterAll(async () => {
  process.env = saved;
  rmSync(dir, { recursive: true, force: true });
  await engine.close();
});

const ok = (r: { code: number | null; all: string }) => expect({ code: r.code, out: r.code === 0 ? '' : r.all.slice(-3000) }).toEqual({ code: 0, out: '' });

test("keyward's record of the earlier release: keyward plan is empty", async () => {
  const manifest = join(dir, 'manifest.json');
  copyFileSync(join(FIXTURES, 'manifest.json'), manifest);
  // The server as that apply left it (written again here: the server's objects do not depend on the release).
  ok(await runKeyward('apply', '--auto-approve', '--manifest', manifest, '--last-applied', join(dir, 'scratch.json')));
  const record = join(dir, 'old.last-applied.json');
  copyFileSync(join(FIXTURES, 'keyward.last-applied.json'), record);
  ok(await runKeyward('plan', '--manifest', manifest, '--last-applied', record, '--detailed-exitcode'));
});

test("Terraform's state of the earlier release: the provider's plan and the PR plan are empty", async () => {
  const provider = keywardProvider({ env: { VAULT_ADDR: engine.url, VAULT_TOKEN: ROOT_TOKEN, KW_UP_S3: S3 } });
  try {
    const b = await TerraformDriver.configure<KeywardProviderContext>(provider, 'keyward_cloud_auth_backend', { fingerprint_salt: tf.salt });
    const s = await TerraformDriver.configure<KeywardProviderContext>(provider, 'keyward_snapshot_auto_config', { fingerprint_salt: tf.salt });
    // The server as that deploy left it.
    await b.deploy(null, b.config(tf.backend));
    await s.deploy(null, s.config(tf.snapshot));
    const state = fixture('terraform.tfstate') as { resources: { type: string; instances: { attributes: ObjectValue }[] }[] };
    const old = (type: string) => state.resources.find((r) => r.type === type)!.instances[0].attributes;
    for (const [d, type, config] of [
      [b, 'keyward_cloud_auth_backend', tf.backend],
      [s, 'keyward_snapshot_auto_config', tf.snapshot],
    ] as const) {
      const refreshed = (await d.read(old(type)))!;
      const plan = await d.plan(refreshed, d.config(config));
      expect({ type, changes: plan.changes }).toEqual({ type, changes: [] });
    }

    // The PR plan: a synthesized stack of the same resources, Terraform's (old) state as the record.
    const stackDir = join(dir, 'cdktf.out', 'stacks', 'up');
    mkdirSync(stackDir, { recursive: true });
    copyFileSync(join(FIXTURES, 'terraform.tfstate'), join(dir, 'terraform.tfstate'));
    const { roles, config, path, description } = tf.backend as {
      roles: Record<string, Record<string, unknown>>;
      config: Record<string, unknown>;
      path: string;
      description: string;
    };
    const { cloudone_secret_access_key_env: s3Env, ...snapshot } = tf.snapshot as Record<string, unknown>;
    writeFileSync(
      join(stackDir, 'keyward.manifest.json'),
      JSON.stringify({
        version: 1,
        fingerprintSalt: tf.salt,
        authBackends: [{ path, type: 'cloud', description, config, roles: Object.entries(roles).map(([name, r]) => ({ name, ...r })) }],
        snapshotConfigs: [{ ...snapshot, cloudone_secret_access_key: { secretRef: { env: s3Env } } }],
      }),
    );
    writeFileSync(
      join(stackDir, 'cdk.tf.json'),
      JSON.stringify({ terraform: { backend: { local: { path: join(dir, 'terraform.tfstate') } } }, resource: { keyward_cloud_auth_backend: { b: { path } } } }),
    );
    ok(await runKeyward('plan', '--dir', join(dir, 'cdktf.out'), '--detailed-exitcode'));
  } finally {
    await provider.stop!();
  }
});
