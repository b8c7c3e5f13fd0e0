// End to end with the real terraform CLI through cdktf and keyward's provider, offline, against the
// embedded engine: deploy 1,000 roles -> redeploy (no write) -> drift and a hand-made role under
// exclusiveRoles corrected -> one-field change (0 to add, 1 to change, 0 to destroy) -> removed role
// deleted -> destroy (an undeclared role is left alone), with the pull-request plan (keyward plan
// --dir, Terraform's state as its record) agreeing with cdktf diff at each step: no change, drift,
// an edit, a deletion; an unset secret env var fails before any write; no secret anywhere on disk
// (plan file unzipped) or output.
// Fails with a clear message when bin/terraform-provider-keyward.js (the provider) is missing.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { runAsync } from '../support/run-async';
import { requireProviderBin } from '../support/provider-bin';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createLogger } from '../../src/engine/log';
import { api, startTestEngine, ROOT_TOKEN } from '../support/engine';
import { serviceAccountKeyJson } from '../unit/constructs/fixtures';
import { cdktfEnv } from '../support/cdktf-env';
import { forwardingFront, type ForwardingFront } from '../support/forwarding-front';

const REPO = resolve(__dirname, '../..');
const CDKTF = join(REPO, 'node_modules', '.bin', 'cdktf');
const TSX = join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const APP = join(__dirname, 'fixtures', 'cdktf-app.ts');

const CREDS = serviceAccountKeyJson('deployer@e2e.iam.gserviceaccount.com');
const PRIVATE_KEY_LINE = (JSON.parse(CREDS) as { private_key: string }).private_key.split('\n')[3];
const S3_SECRET = `s3secret-${randomBytes(16).toString('hex')}`;
const AZURE_KEY = randomBytes(48).toString('base64');
const GCS_KEY = JSON.stringify({ type: 'service_account', client_email: 'snap@e2e.iam.gserviceaccount.com', marker: `gcs-${randomBytes(24).toString('hex')}` });
const SECRETS = {
  'credentials JSON': CREDS,
  'credentials private key line': PRIVATE_KEY_LINE,
  'S3 secret key': S3_SECRET,
  'Azure account key': AZURE_KEY,
  'GCS key (ephemeral)': GCS_KEY,
};

const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex

/** A loopback proxy in front of the engine that records every request that can write. */
async function writeRecorder(target: string): Promise<ForwardingFront & { writes: string[] }> {
  const writes: string[] = [];
  const front = await forwardingFront(target, (req) => {
    if (!['GET', 'LIST', 'HEAD'].includes(req.method ?? '')) writes.push(`${req.method} ${req.url}`);
    return false;
  });
  return { ...front, writes };
}

describe('cdktf deploy / diff / destroy with terraform and the keyward provider (offline)', () => {
  let engine: Awaited<ReturnType<typeof startTestEngine>>;
  let proxy: Awaited<ReturnType<typeof writeRecorder>>;
  let dir: string;
  let jsonDir: string;
  const logs: string[] = [];
  const outputs: string[] = [];

  beforeAll(async () => {
    requireProviderBin();
    engine = await startTestEngine({ edition: 'enterprise', logger: createLogger('debug', (line) => logs.push(line)) });
    proxy = await writeRecorder(engine.url);
    dir = mkdtempSync(join(tmpdir(), 'keyward-cdktf-e2e-'));
    jsonDir = mkdtempSync(join(tmpdir(), 'keyward-cdktf-e2e-json-'));
    writeFileSync(
      join(dir, 'cdktf.json'),
      JSON.stringify({ language: 'typescript', app: `node ${TSX} ${APP}`, projectId: 'keyward-e2e', sendCrashReports: 'false', terraformProviders: [], terraformModules: [] }),
    );
    // As in an app with keyward installed: the provider launcher finds node_modules/keyward.
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(REPO, join(dir, 'node_modules', 'keyward'), 'dir');
  });

  afterAll(async () => {
    await proxy?.close();
    await engine?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (jsonDir) rmSync(jsonDir, { recursive: true, force: true });
  });

  function scenario(s: { webTtl: string; batch: boolean; roles?: number; s3?: boolean }): void {
    writeFileSync(join(dir, 'scenario.json'), JSON.stringify({ address: proxy.url, roles: 1000, ...s }));
  }

  /** Runs cdktf in the app directory; resolves with its output (secrets must never be in it). */
  function cdktf(args: string[], unset: string[] = [], extra: Record<string, string> = {}): Promise<{ code: number | null; text: string }> {
    const env = cdktfEnv(
      { url: proxy.url, token: ROOT_TOKEN },
      {
        KW_SCENARIO: join(dir, 'scenario.json'),
        KW_CREDS: CREDS,
        KW_S3_SECRET: S3_SECRET,
        TF_VAR_azure_key: AZURE_KEY,
        TF_VAR_gcs_key: GCS_KEY,
        ...extra,
      },
    );
    for (const k of unset) delete env[k];
    return new Promise((ok, fail) => {
      const child: ChildProcess = spawn(CDKTF, args, { cwd: dir, env });
      let out = '';
      child.stdout?.on('data', (d) => (out += String(d)));
      child.stderr?.on('data', (d) => (out += String(d)));
      child.on('error', fail);
      child.on('close', (code) => {
        const text = strip(out);
        outputs.push(text);
        ok({ code, text });
      });
    });
  }
  const ok = async (...args: string[]) => {
    const r = await cdktf(args);
    expect({ args, code: r.code, tail: r.code === 0 ? '' : r.text.slice(-4000) }).toEqual({ args, code: 0, tail: '' });
    return r.text;
  };

  const role = (name: string) => api(engine, 'GET', `auth/cloud/role/${name}`);

  /** The pull-request plan: `keyward plan --dir cdktf.out` (Terraform's state is its record). */
  const SECRET_ENV = { KW_CREDS: CREDS, KW_S3_SECRET: S3_SECRET, TF_VAR_azure_key: AZURE_KEY, TF_VAR_gcs_key: GCS_KEY };
  const keywardPlan = async (...args: string[]) => keywardPlanWith(SECRET_ENV, ...args);
  const keywardPlanWith = async (secrets: Record<string, string>, ...args: string[]) => {
    const env: NodeJS.ProcessEnv = { ...process.env, VAULT_ADDR: proxy.url, VAULT_TOKEN: ROOT_TOKEN, ...secrets };
    for (const k of Object.keys(SECRET_ENV)) if (!(k in secrets)) delete env[k];
    const r = await runAsync(process.execPath, [join(REPO, 'bin', 'keyward.js'), 'plan', '--dir', join(dir, 'cdktf.out'), '--stack', 'e2e', ...args], { cwd: dir, env });
    outputs.push(r.stdout + r.stderr);
    return r;
  };
  /** The objects a keyward plan (JSON) changes, as [id, action]. */
  const changedObjects = (json: string) =>
    (JSON.parse(json) as { objects: { id: string; action: string }[] }).objects.filter((o) => o.action !== 'no-op').map((o) => [o.id, o.action]);
  /** Terraform's own decision in the plan file cdktf diff left: `terraform show -json` through `keyward show`. */
  const terraformDecision = async (format: 'json' | 'markdown') => {
    const shown = await runAsync('terraform', ['show', '-json', 'plan'], { cwd: join(dir, 'cdktf.out', 'stacks', 'e2e'), env: cdktfEnv({ url: proxy.url, token: ROOT_TOKEN }) });
    expect({ status: shown.status, err: shown.status === 0 ? '' : shown.stderr }).toEqual({ status: 0, err: '' });
    const file = join(jsonDir, 'tfplan.json');
    writeFileSync(file, shown.stdout);
    const r = await runAsync(process.execPath, [join(REPO, 'bin', 'keyward.js'), 'show', file, '--format', format, '--detailed-exitcode', '--apply-command', 'cdktf deploy e2e'], {
      cwd: dir,
    });
    rmSync(file);
    outputs.push(r.stdout + r.stderr);
    return r;
  };

  it('an unset secret environment variable fails at synth and the server is untouched', async () => {
    scenario({ webTtl: '1h', batch: true });
    proxy.writes.length = 0;
    const r = await cdktf(['deploy', '--auto-approve'], ['KW_CREDS']);
    expect(r.code).not.toBe(0);
    expect(r.text).toContain('KW_CREDS is not set');
    expect(proxy.writes).toEqual([]);
  }, 120_000);

  it('deploys 1,000 roles, corrects drift, changes one field, removes a role, destroys', async () => {
    scenario({ webTtl: '1h', batch: true });
    await ok('deploy', '--auto-approve');
    expect((await role('web')).body.data.token_ttl).toBe(3600);
    expect((await role('r-999')).status).toBe(200);
    expect((await role('batch')).body.data.bound_labels).toEqual({ env: 'e2e' });
    expect((await api(engine, 'GET', 'auth/cloud/config')).body.data.client_email).toBe('deployer@e2e.iam.gserviceaccount.com');
    expect((await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/config/nightly-azure')).body.data.storage_type).toBe('cloudthree-store');
    expect((await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/config/nightly-gcs')).body.data.storage_type).toBe('cloudtwo-store');

    // keyward plan on the synthesized output agrees: nothing to do.
    const kp = await keywardPlan('--detailed-exitcode');
    expect({ status: kp.status, out: kp.status === 0 ? '' : kp.stdout.slice(-3000) + kp.stderr }).toEqual({ status: 0, out: '' });
    expect(kp.stdout).toContain(`Compared with Terraform's state (what cdktf deploy / terraform apply applied): ${join(dir, 'terraform.e2e.tfstate')}`);

    // A PR plan without production secrets (plan-only mode): synth, keyward plan and cdktf diff with
    // every secret unset take them as unchanged and say so; Terraform still needs some value for
    // its declared variables (write-only: never used by a plan), so they get placeholders.
    proxy.writes.length = 0;
    const planOnly = { KEYWARD_PLAN_ONLY: '1' };
    const unsetAll = ['KW_CREDS', 'KW_S3_SECRET', 'TF_VAR_azure_key', 'TF_VAR_gcs_key'];
    expect((await cdktf(['synth'], unsetAll, planOnly)).code).toBe(0);
    const noSecrets = await keywardPlanWith(planOnly, '--detailed-exitcode');
    expect({ status: noSecrets.status, err: noSecrets.stderr }).toEqual({ status: 0, err: '' });
    expect(noSecrets.stdout).toContain('Plan only: 4 secrets not set, taken as unchanged');
    expect(noSecrets.stdout).toContain('KW_CREDS (auth/cloud/config credentials)');
    expect(noSecrets.stdout).toContain('KW_S3_SECRET (snapshot/nightly-s3 cloudone_secret_access_key)');
    const diffNoSecrets = await cdktf(['diff'], ['KW_CREDS', 'KW_S3_SECRET'], { ...planOnly, TF_VAR_azure_key: 'unused', TF_VAR_gcs_key: 'unused' });
    expect({ code: diffNoSecrets.code, tail: diffNoSecrets.code === 0 ? '' : diffNoSecrets.text.slice(-3000) }).toEqual({ code: 0, tail: '' });
    expect(diffNoSecrets.text).toMatch(/No changes/);
    expect(diffNoSecrets.text).toContain('KW_CREDS is not set: taken as unchanged (plan only)');
    expect(diffNoSecrets.text).toContain('KW_S3_SECRET is not set: taken as unchanged (plan only)');
    expect(proxy.writes).toEqual([]);

    // Redeploy without a change: no changes, nothing written.
    proxy.writes.length = 0;
    expect(await ok('deploy', '--auto-approve')).toMatch(/No changes/);
    expect(proxy.writes).toEqual([]);

    // Out-of-band drift (a declared field, and token_max_ttl, which web leaves null = the server
    // default) and a hand-made role under exclusiveRoles: all corrected by the next deploy.
    expect((await api(engine, 'POST', 'auth/cloud/role/web', { body: { token_ttl: 999, token_max_ttl: 7200 } })).status).toBeLessThan(300);
    expect((await api(engine, 'POST', 'auth/cloud/role/backdoor', { body: { type: 'iam', bound_service_accounts: ['*'] } })).status).toBeLessThan(300);
    // The PR plan calls it drift against Terraform's state, as cdktf diff plans to correct it.
    const drifted = await keywardPlan('--detailed-exitcode');
    expect(drifted.status).toBe(2);
    expect(drifted.stdout).toContain('~ auth/cloud/role/web: token_ttl: 3600 (last applied) -> 999 (live)');
    expect(drifted.stdout).toContain('~ token_ttl: 999 -> 3600');
    expect(drifted.stdout).toMatch(/- auth\/cloud\/role\/backdoor will be deleted \(not declared in an exclusive scope/);
    await ok('deploy', '--auto-approve');
    expect((await role('web')).body.data).toMatchObject({ token_ttl: 3600, token_max_ttl: 0 });
    expect((await role('backdoor')).status).toBe(404);

    // One field: 0 to add, 1 to change, 0 to destroy, naming the field; only that role is written.
    scenario({ webTtl: '2h', batch: true });
    const diff = await ok('diff');
    expect(diff).toMatch(/0 to add, 1 to change, 0 to destroy/);
    expect(diff).toMatch(/token_ttl/);
    // The PR plan agrees: one change, not drift.
    const edited = await keywardPlan('--detailed-exitcode');
    expect(edited.status).toBe(2);
    expect(edited.stdout).toContain('~ token_ttl: 3600 -> 7200');
    expect(edited.stdout).toContain('Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.');
    expect(edited.stdout).not.toContain('Drift');
    // Object by object, the PR plan is Terraform's decision (its saved plan, read by keyward show).
    const editedJson = await keywardPlan('--format', 'json');
    expect(changedObjects(editedJson.stdout)).toEqual([['auth/cloud/role/web', 'update']]);
    expect(changedObjects((await terraformDecision('json')).stdout)).toEqual(changedObjects(editedJson.stdout));
    proxy.writes.length = 0;
    await ok('deploy', '--auto-approve');
    expect(proxy.writes).toEqual(['POST /v1/auth/cloud/role/web']);
    expect((await role('web')).body.data.token_ttl).toBe(7200);

    // A removed role and snapshot config: cdktf diff plans their deletion, and the PR plan lists them in the warning block (exit 2).
    scenario({ webTtl: '2h', batch: false, s3: false });
    const removal = await ok('diff');
    expect(removal).toMatch(/Role "batch" will be deleted from auth\/cloud/);
    expect(removal).toMatch(/nightly-s3.*will be destroyed/);
    const pr = await keywardPlan('--format', 'markdown', '--detailed-exitcode');
    expect(pr.status).toBe(2);
    expect(pr.stdout).toContain('**Plan: 0 to create, 0 to update, 0 to replace, 2 to delete.**');
    expect(pr.stdout).toContain('- <code>- auth/cloud/role/batch</code> delete (removed from the desired state) `narrows-access`');
    expect(pr.stdout).toContain('- <code>- snapshot/nightly-s3</code> delete (removed from the desired state) `reduces-backups`');
    expect(pr.stdout).toContain('To apply this plan: <code>cdktf deploy e2e</code>');
    const shownMd = await terraformDecision('markdown');
    expect(shownMd.status).toBe(2);
    expect(shownMd.stdout).toContain('- <code>- auth/cloud/role/batch</code> delete (removed from the desired state) `narrows-access`');
    const prJson = await keywardPlan('--format', 'json');
    expect(changedObjects(prJson.stdout)).toEqual([
      ['auth/cloud/role/batch', 'delete'],
      ['snapshot/nightly-s3', 'delete'],
    ]);
    expect(changedObjects((await terraformDecision('json')).stdout)).toEqual(changedObjects(prJson.stdout));
    await ok('deploy', '--auto-approve');
    expect((await role('batch')).status).toBe(404);
    expect((await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/config/nightly-s3')).status).toBe(404);

    // Destroy removes what the stack managed; a role made by hand afterwards stays (and so its mount).
    expect((await api(engine, 'POST', 'auth/cloud/role/manual', { body: { type: 'vm' } })).status).toBeLessThan(300);
    scenario({ webTtl: '2h', batch: false, roles: 1000, s3: false });
    await ok('destroy', '--auto-approve');
    expect((await role('web')).status).toBe(404);
    expect((await role('r-0')).status).toBe(404);
    expect((await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/config/nightly-s3')).status).toBe(404);
    expect((await role('manual')).status).toBe(200);

    // No secret in any file of the app (state, cdktf.out, the plan file cdktf diff left, unzipped) nor in any output or log.
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d)) {
        const p = join(d, e);
        if ((e === '.terraform' || e === 'node_modules') && statSync(p).isDirectory()) continue;
        if (statSync(p).isDirectory()) walk(p);
        else files.push(p);
      }
    };
    walk(dir);
    expect(files.some((f) => /\.tfstate/.test(f))).toBe(true);
    const texts = files.map((f) => ({ f, text: readFileSync(f) }));
    for (const f of files.filter((x) => /\/plan$/.test(x))) texts.push({ f: `${f} (unzipped)`, text: spawnSync('unzip', ['-p', f]).stdout });
    expect(texts.some((t) => t.f.endsWith('(unzipped)'))).toBe(true);
    for (const [what, value] of Object.entries(SECRETS)) {
      for (const t of texts) expect({ file: t.f, what, found: t.text.includes(value) }).toEqual({ file: t.f, what, found: false });
      expect({ what, inOutput: outputs.some((o) => o.includes(value)) }).toEqual({ what, inOutput: false });
      expect({ what, inLogs: logs.some((o) => o.includes(value)) }).toEqual({ what, inLogs: false });
    }
  }, 600_000);

  it('importFrom brings a mount and a snapshot config made by hand under the stack: a create over them is refused, the import plans nothing afterwards', async () => {
    const imp = mkdtempSync(join(tmpdir(), 'keyward-cdktf-import-'));
    try {
      writeFileSync(
        join(imp, 'cdktf.json'),
        JSON.stringify({
          language: 'typescript',
          app: `node ${TSX} ${join(__dirname, 'fixtures', 'import-app.ts')}`,
          projectId: 'keyward-import-e2e',
          sendCrashReports: 'false',
          terraformProviders: [],
          terraformModules: [],
        }),
      );
      mkdirSync(join(imp, 'node_modules'));
      symlinkSync(REPO, join(imp, 'node_modules', 'keyward'), 'dir');
      const snapDir = join(imp, 'snaps');
      expect((await api(engine, 'POST', 'sys/auth/legacy', { body: { type: 'cloud', description: 'by hand' } })).status).toBeLessThan(300);
      expect(
        (
          await api(engine, 'POST', 'auth/legacy/role/web', {
            body: { type: 'iam', bound_service_accounts: ['web@e2e.iam.gserviceaccount.com'], token_ttl: 3600, token_policies: ['web'] },
          })
        ).status,
      ).toBeLessThan(300);
      const snapBody = { storage_type: 'local', interval: 86400, retain: 2, path_prefix: snapDir, local_max_space: 1_000_000 };
      expect((await api(engine, 'POST', 'sys/storage/raft/snapshot-auto/config/legacy-snap', { body: snapBody })).status).toBeLessThan(300);
      const run = (args: string[], importing: boolean) =>
        runAsync(CDKTF, args, {
          cwd: imp,
          env: cdktfEnv({ url: engine.url, token: ROOT_TOKEN }, { KW_ADDRESS: engine.url, KW_SNAP_DIR: snapDir, KW_IMPORT: importing ? '1' : '0' }),
        });
      const created = await run(['diff'], false);
      const refusal = strip(created.stdout + created.stderr).replace(/\s+/g, ' ');
      expect(created.status).not.toBe(0);
      expect(refusal).toContain('auth/legacy already exists on the server');
      expect(refusal).toContain('backend.importFrom("legacy")');
      expect(refusal).toContain('Snapshot config "legacy-snap" already exists on the server');
      const imported = await run(['deploy', '--auto-approve'], true);
      expect({ status: imported.status, out: imported.status === 0 ? '' : strip(imported.stdout + imported.stderr).slice(-3000) }).toEqual({ status: 0, out: '' });
      // Each import as Terraform reports it: cdktf sometimes drops Terraform's closing "Apply complete! Resources: 2
      // imported" line when a CLI-configuration warning box follows it (seen on a clean clone), so the per-resource lines.
      const importedOut = strip(imported.stdout);
      expect(importedOut).toMatch(/\(legacy\/resource\): Import complete \[id=legacy\]/);
      expect(importedOut).toMatch(/\(legacy-snap\/resource\): Import complete \[id=legacy-snap\]/);
      const after = await run(['diff'], false);
      expect({ status: after.status, out: strip(after.stdout) }).toEqual({ status: 0, out: expect.stringMatching(/No changes/) });
      expect((await api(engine, 'GET', 'auth/legacy/role/web')).body.data.token_ttl).toBe(3600);
    } finally {
      rmSync(imp, { recursive: true, force: true });
    }
  }, 300_000);

  it('one stack, two servers (a provider alias): cdktf deploy writes each server its objects; keyward plan --stack two/dr agrees', async () => {
    const two = mkdtempSync(join(tmpdir(), 'keyward-cdktf-two-'));
    const other = await startTestEngine({ edition: 'enterprise' });
    try {
      writeFileSync(
        join(two, 'cdktf.json'),
        JSON.stringify({
          language: 'typescript',
          app: `node ${TSX} ${join(__dirname, 'fixtures', 'two-servers-app.ts')}`,
          projectId: 'keyward-two-e2e',
          sendCrashReports: 'false',
          terraformProviders: [],
          terraformModules: [],
        }),
      );
      mkdirSync(join(two, 'node_modules'));
      symlinkSync(REPO, join(two, 'node_modules', 'keyward'), 'dir');
      // VAULT_ADDR unset: each server's declared address is used (one that differed would be refused).
      const env = { ...cdktfEnv({ url: 'http://127.0.0.1:9', token: ROOT_TOKEN }, { KW_MAIN: engine.url, KW_DR: other.url }), VAULT_ADDR: '' };
      const deployed = await runAsync(CDKTF, ['deploy', '--auto-approve'], { cwd: two, env });
      expect({ status: deployed.status, out: deployed.status === 0 ? '' : strip(deployed.stdout + deployed.stderr).slice(-3000) }).toEqual({ status: 0, out: '' });
      expect((await api(engine, 'GET', 'auth/cloud-main/role/web')).status).toBe(200);
      expect((await api(engine, 'GET', 'sys/auth')).body.data['cloud-dr/']).toBeUndefined();
      expect((await api(other, 'GET', 'auth/cloud-dr/role/web')).status).toBe(200);
      for (const stack of ['two', 'two/dr']) {
        const kp = await runAsync(process.execPath, [join(REPO, 'bin', 'keyward.js'), 'plan', '--dir', join(two, 'cdktf.out'), '--stack', stack, '--detailed-exitcode'], {
          cwd: two,
          env,
        });
        expect({ stack, status: kp.status, out: kp.status === 0 ? '' : kp.stdout + kp.stderr }).toEqual({ stack, status: 0, out: '' });
        expect(kp.stdout).toContain(`Compared with Terraform's state`);
      }
    } finally {
      await other.close();
      rmSync(two, { recursive: true, force: true });
    }
  }, 300_000);
});
