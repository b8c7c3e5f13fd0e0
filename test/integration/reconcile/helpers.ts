// Shared pieces of the reconciler integration tests: a manifest builder, a service-account key
// whose text the tests search for in every output, and one-call plan/apply against an engine.

import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { VaultClient } from '../../../src/client/vault-client';
import { applyPlan, type ApplyOptions } from '../../../src/reconcile/apply';
import { desiredFromManifest } from '../../../src/reconcile/desired';
import { makePlan } from '../../../src/reconcile/plan';
import { emptyRecord, type LastApplied } from '../../../src/reconcile/record';
import { findManifests } from '../../../src/reconcile/source';
import { parseManifest, type ManifestInput } from '../../../src/schema/manifest';
import type { Engine } from '../../../src/engine/engine';
import { ROOT_TOKEN, startTestEngine } from '../../support/engine';

export function serviceAccountKey(id: string): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return JSON.stringify({
    type: 'service_account',
    project_id: 'keyward-ops',
    private_key_id: id,
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
    client_email: 'keyward@keyward-ops.iam.gserviceaccount.com',
    client_id: '110000000000000000000',
  });
}

export const SALT = 'test-salt-0123456789';

const TSX = join(resolve(__dirname, '../../..'), 'node_modules/tsx/dist/cjs/index.cjs');

/**
 * Runs a cdktf program that `keyward import` generated (`file` in `dir`, beside a node_modules
 * link) with `env`, and returns the manifest it synthesizes.
 */
export function synthesizeImported(dir: string, file: string, env: NodeJS.ProcessEnv) {
  const out = join(dir, `out-${file}`);
  execFileSync(process.execPath, ['--require', TSX, join(dir, file)], { cwd: dir, env: { ...env, CDKTF_OUTDIR: out }, stdio: 'pipe' });
  const [manifestPath] = [...findManifests(out).values()];
  return parseManifest(JSON.parse(readFileSync(manifestPath, 'utf8')));
}

export function manifest(partial: Partial<ManifestInput>): ManifestInput {
  return { version: 1, fingerprintSalt: SALT, ...partial };
}

export function iamRole(name: string, extra: Record<string, unknown> = {}) {
  return { name, type: 'iam' as const, bound_service_accounts: [`${name}@proj-a.iam.gserviceaccount.com`], token_policies: ['default', name], ...extra };
}

export function client(url: string, opts: { retryAttempts?: number } = {}): VaultClient {
  return new VaultClient({ address: url, token: ROOT_TOKEN, retry: opts.retryAttempts ? { attempts: opts.retryAttempts, baseDelayMs: 5, maxDelayMs: 50 } : undefined });
}

export class Session {
  record: LastApplied = emptyRecord();
  constructor(
    readonly c: VaultClient,
    public env: NodeJS.ProcessEnv = {},
  ) {}

  async plan(m: ManifestInput) {
    const desired = desiredFromManifest(parseManifest(m), this.env);
    return (await makePlan(this.c, desired, this.record)).plan;
  }

  async apply(m: ManifestInput, opts: ApplyOptions = {}) {
    const desired = desiredFromManifest(parseManifest(m), this.env);
    const { plan } = await makePlan(this.c, desired, this.record);
    const result = await applyPlan(this.c, desired, this.record, plan, {
      env: this.env,
      ...opts,
      saveRecord: (r) => {
        this.record = r;
        opts.saveRecord?.(r);
      },
    });
    this.record = result.record;
    return { plan, result };
  }
}

/**
 * The in-process CLI's surroundings for a test file: an enterprise engine on a loopback port, a
 * work directory, VAULT_ADDR and VAULT_TOKEN pointing at it; the environment is restored after.
 */
export function withCliEngine(prefix: string, use: (engine: Engine, work: string) => void): void {
  const saved = { ...process.env };
  let engine: Engine;
  let work: string;
  beforeAll(async () => {
    engine = await startTestEngine({ edition: 'enterprise' });
    work = mkdtempSync(join(tmpdir(), prefix));
    process.env.VAULT_ADDR = engine.url;
    process.env.VAULT_TOKEN = ROOT_TOKEN;
    use(engine, work);
  });
  afterAll(async () => {
    process.env = saved;
    await engine.close();
    rmSync(work, { recursive: true, force: true });
  });
}

/** A cloudone-store snapshot config whose secret key comes from the environment variable `env`. */
export function cloudOneSnapshot(name: string, env: string) {
  return {
    name,
    storage_type: 'cloudone-store' as const,
    interval: '1h',
    path_prefix: 'p/',
    cloudone_bucket: 'b',
    cloudone_region: 'r',
    cloudone_access_key_id: 'AK',
    cloudone_secret_access_key: { secretRef: { env } },
  };
}
