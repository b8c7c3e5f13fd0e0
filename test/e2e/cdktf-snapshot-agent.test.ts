// Acceptance for Vault Community / OpenBao users, end to end with cdktf, the real terraform CLI and
// keyward's provider (offline), against the engine in oss edition standing in for such a server:
// without an agent the plan fails naming `keyward snapshot-agent`; with one, the auth mount goes to
// the server and four snapshot configs (local, s3rver, the GCS emulator, azurite) to the agent;
// snapshots land on schedule with retention, an archive restores into the engine, a redeploy plans
// nothing and drift on the agent's configs is corrected.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ManualClock } from '../../src/engine/clock';
import { createTarget } from '../../src/engine/snapshot/targets/create-target';
import { validateSnapshotConfigWrite } from '../../src/schema/snapshot-validate';
import { startSnapshotAgent, type SnapshotAgent } from '../../src/snapshot-agent/agent';
import { cdktfEnv } from '../support/cdktf-env';
import { requireProviderBin } from '../support/provider-bin';
import { api, ROOT_TOKEN, startTestEngine } from '../support/engine';
import { AZURITE_KEY, isCompleteArchive, startAzurite, startGcs, startS3, type RunningStore } from '../support/object-stores';
import { serviceAccountKeyJson } from '../unit/constructs/fixtures';
import { CONTRACT_TOKEN, startVaultContract } from '../support/vault-contract/server';
import { readAll } from '../support/read-all';

const REPO = resolve(__dirname, '../..');
const CDKTF = join(REPO, 'node_modules', '.bin', 'cdktf');
const TSX = join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const APP = join(__dirname, 'fixtures', 'agent-app.ts');
const CREDS = serviceAccountKeyJson('deployer@e2e.iam.gserviceaccount.com');
const INTERVAL = 60;
const CONFIG = 'sys/storage/raft/snapshot-auto/config';

const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex

describe('cdktf stack for a server without automated snapshots, through keyward snapshot-agent', () => {
  let engine: Awaited<ReturnType<typeof startTestEngine>>;
  let agent: SnapshotAgent;
  let s3: RunningStore, gcs: RunningStore, azure: RunningStore;
  let dir: string;
  const clock = new ManualClock(Date.UTC(2026, 0, 1));

  beforeAll(async () => {
    requireProviderBin();
    [s3, gcs, azure] = await Promise.all([startS3(), startGcs(), startAzurite()]);
    engine = await startTestEngine({ edition: 'oss' });
    dir = mkdtempSync(join(tmpdir(), 'keyward-agent-e2e-'));
    agent = await startSnapshotAgent({
      server: engine.url,
      listen: '127.0.0.1:0',
      state: join(dir, 'state'),
      env: { VAULT_TOKEN: ROOT_TOKEN },
      clock,
      allowAmbientCredentials: true,
    }); // the GCS emulator takes no key
    // Two app directories (two Terraform states): one per server.
    for (const app of ['app', 'bao-app']) {
      mkdirSync(join(dir, app));
      writeFileSync(
        join(dir, app, 'cdktf.json'),
        JSON.stringify({
          language: 'typescript',
          app: `node ${TSX} ${APP}`,
          projectId: `keyward-agent-e2e-${app}`,
          sendCrashReports: 'false',
          terraformProviders: [],
          terraformModules: [],
        }),
      );
      mkdirSync(join(dir, app, 'node_modules'));
      symlinkSync(REPO, join(dir, app, 'node_modules', 'keyward'), 'dir');
    }
  }, 120_000);

  afterAll(async () => {
    await agent?.close();
    await engine?.close();
    await Promise.all([s3, gcs, azure].filter((s) => s).map((s) => s.close()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  interface Target {
    server: string;
    token: string;
    agent?: string;
    app: string;
    prefix: string;
    local: string;
    extra?: NodeJS.ProcessEnv;
  }
  const onEngine = (withAgent: boolean): Target => ({
    server: engine.url,
    token: ROOT_TOKEN,
    agent: withAgent ? agent.url : undefined,
    app: 'app',
    prefix: 'agent/',
    local: join(dir, 'local'),
  });

  function cdktf(args: string[], withAgent: boolean | Target): Promise<{ code: number | null; text: string }> {
    const t = typeof withAgent === 'boolean' ? onEngine(withAgent) : withAgent;
    const env = cdktfEnv(
      { url: t.server, token: t.token },
      {
        KW_ADDRESS: t.server,
        KW_AGENT: t.agent ?? '',
        KW_PREFIX: t.prefix,
        KW_STORES: JSON.stringify({ local: t.local, s3: s3.fields, gcs: gcs.fields, azure: azure.fields }),
        KW_INTERVAL: String(INTERVAL),
        KW_CREDS: CREDS,
        KW_S3_SECRET: String(s3.fields.cloudone_secret_access_key),
        KW_AZURE_KEY: AZURITE_KEY,
        ...t.extra,
      },
    );
    return new Promise((ok, fail) => {
      const child: ChildProcess = spawn(CDKTF, args, { cwd: join(dir, t.app), env });
      let out = '';
      child.stdout?.on('data', (d) => (out += String(d)));
      child.stderr?.on('data', (d) => (out += String(d)));
      child.on('error', fail);
      child.on('close', (code) => ok({ code, text: strip(out) }));
    });
  }
  const ok = async (args: string[], withAgent: boolean | Target = true) => {
    const r = await cdktf(args, withAgent);
    expect({ args, code: r.code, tail: r.code === 0 ? '' : r.text.slice(-4000) }).toEqual({ args, code: 0, tail: '' });
    return r.text;
  };

  it('without an agent, terraform plan fails at plan time naming keyward snapshot-agent', async () => {
    const r = await cdktf(['diff'], false);
    expect(r.code).not.toBe(0);
    expect(r.text).toMatch(/keyward snapshot-agent/);
    expect(r.text).toMatch(/oss edition/);
    expect((await api(engine, 'GET', 'sys/auth')).body.data['cloud/']).toBeUndefined();
  }, 300_000);

  it('deploys auth to the server and configs to the agent; snapshots on schedule in four targets; restore; no-op redeploy; drift corrected', async () => {
    await ok(['deploy', '--auto-approve']);
    expect((await api(engine, 'GET', 'sys/auth')).body.data['cloud/'].type).toBe('cloud');
    expect((await api(engine, 'GET', 'auth/cloud/role/web')).status).toBe(200);
    expect((await api(agent.url, 'GET', `${CONFIG}?list=true`)).body.data.keys).toEqual(['to-azure', 'to-gcs', 'to-local', 'to-s3']);

    // Three intervals on the agent's clock: three attempts per config, two kept.
    for (let i = 0; i < 3; i++) {
      await clock.advance(INTERVAL * 1000);
      await agent.scheduler.settled();
    }
    const local = readdirSync(join(dir, 'local'))
      .filter((n) => /^vault-snapshot-\d+\.snap$/.test(n))
      .sort();
    expect(local).toHaveLength(2);
    const targets: [string, Record<string, unknown>][] = [
      ['cloudone-store', s3.fields],
      ['cloudtwo-store', gcs.fields],
      ['cloudthree-store', azure.fields],
    ];
    for (const [type, fields] of targets) {
      const t = createTarget(validateSnapshotConfigWrite({ storage_type: type, interval: INTERVAL, path_prefix: 'agent/', ...fields }).config);
      try {
        const names = (await t.list()).map((o) => o.name).filter((n) => /^vault-snapshot-\d+\.snap$/.test(n));
        expect({ type, count: names.length }).toEqual({ type, count: 2 });
        expect(await isCompleteArchive(await readAll(await t.get(names.sort()[1])))).toBe(true);
      } finally {
        await t.close();
      }
    }
    for (const name of ['to-local', 'to-s3', 'to-gcs', 'to-azure']) {
      expect((await api(agent.url, 'GET', `sys/storage/raft/snapshot-auto/status/${name}`)).body.data).toMatchObject({ consecutive_errors: 0, last_snapshot_error: '' });
    }
    // An archive the agent stored restores into the engine.
    const r = await api(engine, 'POST', 'sys/storage/raft/snapshot', { rawBody: readFileSync(join(dir, 'local', local[1])) });
    expect([r.status, r.text]).toEqual([204, '']);

    // Redeploy without a change: nothing planned.
    expect(await ok(['deploy', '--auto-approve'])).toMatch(/No changes/);

    // Drift on the agent's config: corrected by the next deploy.
    expect(
      (await api(agent.url, 'POST', `${CONFIG}/to-local`, { body: { storage_type: 'local', interval: 7, retain: 9, path_prefix: join(dir, 'local'), local_max_space: 1024 ** 3 } }))
        .status,
    ).toBe(204);
    const diff = await ok(['diff']);
    expect(diff).toMatch(/retain/);
    await ok(['deploy', '--auto-approve']);
    expect((await api(agent.url, 'GET', `${CONFIG}/to-local`)).body.data).toMatchObject({ interval: INTERVAL, retain: 2 });
    expect(await ok(['deploy', '--auto-approve'])).toMatch(/No changes/);
  }, 600_000);

  it('the same stack against the contract server in OpenBao mode: the auth mount under the registered plugin name, configs through an agent', async () => {
    const PLUGIN = 'vault-plugin-auth-gcp';
    const bao = await startVaultContract({ flavor: 'openbao', gcpPluginName: PLUGIN });
    const baoClock = new ManualClock(Date.UTC(2026, 0, 1));
    const baoAgent = await startSnapshotAgent({
      server: bao.url,
      listen: '127.0.0.1:0',
      state: join(dir, 'bao-state'),
      env: { VAULT_TOKEN: CONTRACT_TOKEN },
      clock: baoClock,
      allowAmbientCredentials: true,
    });
    try {
      const t: Target = {
        server: bao.url,
        token: CONTRACT_TOKEN,
        agent: baoAgent.url,
        app: 'bao-app',
        prefix: 'bao/',
        local: join(dir, 'bao-local'),
        extra: { KEYWARD_CLOUD_PLUGIN: PLUGIN },
      };
      await ok(['deploy', '--auto-approve'], t);
      expect(bao.mounts.get('cloud')?.type).toBe(PLUGIN);
      expect(bao.snapshots.size).toBe(0);
      expect((await api(baoAgent.url, 'GET', `${CONFIG}?list=true`, { token: CONTRACT_TOKEN })).body.data.keys).toEqual(['to-azure', 'to-gcs', 'to-local', 'to-s3']);
      // Vault's names on the wire: the agent serves the S3 config with aws_* fields.
      expect((await api(baoAgent.url, 'GET', `${CONFIG}/to-s3`, { token: CONTRACT_TOKEN })).body.data).toMatchObject({
        storage_type: 'aws-s3',
        aws_s3_bucket: s3.fields.cloudone_bucket,
      });
      await baoClock.advance(INTERVAL * 1000);
      await baoAgent.scheduler.settled();
      expect(readdirSync(join(dir, 'bao-local')).filter((n) => /^vault-snapshot-\d+\.snap$/.test(n))).toHaveLength(1);
      expect(await ok(['deploy', '--auto-approve'], t)).toMatch(/No changes/);
      expect(bao.problems).toEqual([]);
    } finally {
      await baoAgent.close();
      await bao.close();
    }
  }, 600_000);
});
