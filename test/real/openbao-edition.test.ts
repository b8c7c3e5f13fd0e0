// The real-OpenBao twins of the tests that use the contract server's OpenBao and Community modes for what a real
// OpenBao can show (issue 39, Build 7):
// - test/integration/snapshot-agent/agent-openbao.test.ts and the OpenBao case of test/e2e/cdktf-snapshot-agent.test.ts:
//   detection from sys/health, a plan with snapshot configs refused naming OpenBao and `keyward snapshot-agent`, and
//   through the agent the auth mount under the operator's plugin name on the server, configs on the agent, a real raft
//   snapshot taken. The stand-in tests stay: they drive the agent's retention with a ManualClock over many runs in
//   seconds and synthesize through cdktf; the server facts they rely on are shown here on the real thing.
// - the `enterprise: false` cases of test/integration/vault-dialect/{reconcile,status,terraform-provider}.test.ts:
//   a server without automated snapshots refuses them with an error naming its edition, at plan time, through the
//   client, `keyward status`, the CLI and Terraform, while the auth method works. They stay for Vault Community
//   (1.x with `enterprise: false`), which cannot run here; OpenBao is the community server that can.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EditionError, serverInfoFromHealth } from '../../src/client';
import { editionName } from '../../src/client/dialect/detect';
import { VaultClient } from '../../src/client/vault-client';
import { ManualClock } from '../../src/engine/clock';
import { startSnapshotAgent, type SnapshotAgent } from '../../src/snapshot-agent/agent';
import { iamRole, manifest, serviceAccountKey } from '../integration/reconcile/helpers';
import { runKeyward } from '../support/keyward-in-process';
import { bao, baoRequest, realServerTools, startOpenBaoCluster, startOpenBaoDev, type OpenBaoDev, type RaftCluster } from '../support/openbao';
import { terraformPath } from '../e2e/scenarios/paths';

const saved = { ...process.env };
const CREDS = serviceAccountKey('edition-1');
const flat = (s: string) => s.replace(/[│╷╵]/g, ' ').replace(/\s+/g, ' ');
let version = '';

beforeAll(() => {
  const t = realServerTools();
  version = t.baoVersion;
  process.stdout.write(
    `real OpenBao ${t.baoVersion}; GCP auth plugin ${t.plugin.module}@${t.plugin.version}${t.plugin.fallback ? ' (FALLBACK: HashiCorp v0.19.1 in place of OpenBao fork)' : ''}\n`,
  );
});
afterAll(() => {
  process.env = saved;
});

const authMounts = async (url: string, token: string) => {
  const r = await bao<{ data: Record<string, { type: string }> }>(url, 'GET', 'sys/auth', { token });
  return Object.fromEntries(
    Object.entries(r.data)
      .filter(([p]) => p !== 'token/')
      .map(([p, m]) => [p.replace(/\/$/, ''), m.type]),
  );
};

describe('automated snapshots on real OpenBao, without an agent: refused at plan time naming the edition', () => {
  let dev: OpenBaoDev;
  let dir: string;
  const snapshotStack = () =>
    manifest({
      server: { dialect: 'vault' },
      authBackends: [{ path: 'cloud', type: 'cloud', config: { credentials: { secretRef: { env: 'KW_CREDS' } } }, roles: [iamRole('web')] }],
      snapshotConfigs: [{ name: 'hourly', storage_type: 'local', interval: '1h', retain: 3, path_prefix: '/tmp/kw-never-written', local_max_space: 100_000_000 }],
    });
  beforeAll(async () => {
    dev = await startOpenBaoDev();
    dir = mkdtempSync(join(tmpdir(), 'keyward-edition-'));
    Object.assign(process.env, { VAULT_ADDR: dev.url, VAULT_TOKEN: dev.token, KW_CREDS: CREDS });
    delete process.env.KEYWARD_DIALECT;
    delete process.env.KEYWARD_SNAPSHOT_ADDR;
  }, 60_000);
  afterAll(async () => {
    await dev?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('sys/health is detected as OpenBao: dialect vault, not Enterprise', async () => {
    const h = await baoRequest(dev.url, 'GET', 'sys/health');
    const info = serverInfoFromHealth(h.body, dev.url);
    expect(info).toMatchObject({ dialect: 'vault', version, enterprise: false, openbao: true });
    expect(editionName(info)).toBe(`OpenBao ${version}`);
  });

  it('the client refuses snapshot-auto with an EditionError naming OpenBao; the auth method works', async () => {
    const c = new VaultClient({ address: dev.url, token: dev.token });
    try {
      await expect(c.snapshots.list()).rejects.toThrow(EditionError);
      await expect(c.snapshots.read('x')).rejects.toThrow(new RegExp(`OpenBao ${version.replace(/\./g, '\\.')}`));
      await c.sys.enableAuth('probe', { type: 'cloud' });
      expect((await c.sys.listAuthMounts()).get('probe')?.type).toBe('cloud');
      expect((await authMounts(dev.url, dev.token)).probe).toBe('gcp');
      await c.sys.disableAuth('probe');
    } finally {
      await c.close();
    }
  });

  it('keyward status: a clear error naming OpenBao and the agent', async () => {
    const r = await runKeyward('status', '--address', dev.url);
    expect({ code: r.code, named: /OpenBao 2\.\d+\.\d+/.test(r.all) && /snapshot-agent/.test(r.all) }).toEqual({ code: 1, named: true });
  });

  it('keyward plan: refused at plan time naming OpenBao and `keyward snapshot-agent --server`; nothing written', async () => {
    const file = join(dir, 'plain.json');
    writeFileSync(file, JSON.stringify(snapshotStack()));
    const r = await runKeyward('plan', '--manifest', file);
    expect({ code: r.code, named: /OpenBao 2\.\d+\.\d+.*keyward snapshot-agent --server/s.test(r.err) }).toEqual({ code: 1, named: true });
    const a = await runKeyward('apply', '--auto-approve', '--manifest', file);
    expect(a.code).toBe(1);
    expect(await authMounts(dev.url, dev.token)).toEqual({});
  });

  it('terraform plan: a snapshot config is refused naming OpenBao and keyward snapshot-agent; nothing written', async () => {
    const tf = terraformPath({ KW_CREDS: CREDS, VAULT_TOKEN: dev.token });
    try {
      await tf.init();
      await tf.reset(dev.url);
      const stack = {
        path: 'cloud',
        roles: { web: { type: 'iam', bound_service_accounts: ['web@p.iam.gserviceaccount.com'] } },
        snapshots: { hourly: { fields: { storage_type: 'local', interval: '1h', path_prefix: '/tmp/kw-never-written', local_max_space: 100_000_000 } } },
      };
      const p = await tf.plan(stack);
      expect({ code: p.code, named: /OpenBao 2\.\d+\.\d+.*keyward snapshot-agent/.test(flat(p.out)), out: p.code === 0 ? p.out.slice(-2000) : '' }).toEqual({
        code: 1,
        named: true,
        out: '',
      });
      const a = await tf.apply(stack);
      expect(a.code).not.toBe(0);
      expect(await authMounts(dev.url, dev.token)).toEqual({});
    } finally {
      tf.close();
    }
  }, 180_000);
});

describe('through keyward snapshot-agent: real OpenBao on raft with the plugin under the operator’s name', () => {
  const PLUGIN = 'vault-plugin-auth-gcp';
  let cluster: RaftCluster;
  let agent: SnapshotAgent;
  let dir: string;
  let url = '';
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const stack = () =>
    manifest({
      server: { cloudPlugin: PLUGIN, snapshotAddress: agent.url },
      authBackends: [{ path: 'gcp-prod', type: 'cloud', config: { credentials: { secretRef: { env: 'KW_CREDS' } } }, roles: [iamRole('web')] }],
      snapshotConfigs: [{ name: 'hourly', storage_type: 'local', interval: '1h', retain: 3, path_prefix: join(dir, 'snaps'), file_prefix: 'bao', local_max_space: 1_000_000_000 }],
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'keyward-edition-agent-'));
    cluster = await startOpenBaoCluster({ size: 1 });
    url = (await cluster.leader()).url;
    // The operator registers the plugin under a name of their choosing (OpenBao has no built-in gcp).
    const { plugin } = realServerTools();
    await bao(url, 'PUT', `sys/plugins/catalog/auth/${PLUGIN}`, { token: cluster.rootToken, body: { sha256: plugin.sha256, command: plugin.name } });
    agent = await startSnapshotAgent({ server: url, listen: '127.0.0.1:0', state: join(dir, 'state'), env: { VAULT_TOKEN: cluster.rootToken }, clock });
    Object.assign(process.env, { VAULT_ADDR: url, VAULT_TOKEN: cluster.rootToken, KW_CREDS: CREDS });
    delete process.env.KEYWARD_DIALECT;
    delete process.env.KEYWARD_CLOUD_PLUGIN;
    delete process.env.KEYWARD_SNAPSHOT_ADDR;
  }, 180_000);
  afterAll(async () => {
    await agent?.close();
    await cluster?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the agent sees OpenBao', () => {
    expect(agent.info).toMatchObject({ dialect: 'vault', version, openbao: true });
  });

  it('apply: the auth mount under the registered plugin name on the server, the config on the agent; a real raft snapshot taken; re-plan empty', async () => {
    const file = join(dir, 'agent.json');
    writeFileSync(file, JSON.stringify(stack()));
    const applied = await runKeyward('apply', '--manifest', file, '--auto-approve');
    expect({ code: applied.code, out: applied.code === 0 ? '' : applied.all.slice(-3000) }).toEqual({ code: 0, out: '' });
    expect((await authMounts(url, cluster.rootToken))['gcp-prod']).toBe(PLUGIN);
    expect((await bao<{ data: { gce_alias?: string; private_key_id: string } }>(url, 'GET', 'auth/gcp-prod/config', { token: cluster.rootToken })).data.private_key_id).toBe(
      'edition-1',
    );
    expect((await bao<{ data: { type: string } }>(url, 'GET', 'auth/gcp-prod/role/web', { token: cluster.rootToken })).data.type).toBe('iam');
    // The server itself has no snapshot-auto; the agent holds the config.
    expect((await baoRequest(url, 'GET', 'sys/storage/raft/snapshot-auto/config/hourly', { token: cluster.rootToken })).status).toBe(404);
    expect((await bao<{ data: Record<string, unknown> }>(agent.url, 'GET', 'sys/storage/raft/snapshot-auto/config/hourly', { token: cluster.rootToken })).data).toMatchObject({
      storage_type: 'local',
      interval: 3600,
      retain: 3,
      file_prefix: 'bao',
    });
    const plan = await runKeyward('plan', '--manifest', file, '--detailed-exitcode');
    expect({ code: plan.code, out: plan.code === 0 ? '' : plan.all.slice(-3000) }).toEqual({ code: 0, out: '' });

    await clock.advance(3600_000);
    await agent.scheduler.settled();
    const snaps = existsSync(join(dir, 'snaps')) ? readdirSync(join(dir, 'snaps')).filter((n) => /^bao-\d+\.snap$/.test(n)) : [];
    expect(snaps).toHaveLength(1);
    // A real raft archive (a gzip tar), not the stand-in's opaque bytes.
    expect(
      readFileSync(join(dir, 'snaps', snaps[0]))
        .subarray(0, 2)
        .toString('hex'),
    ).toBe('1f8b');
    const status = (await bao<{ data: Record<string, unknown> }>(agent.url, 'GET', 'sys/storage/raft/snapshot-auto/status/hourly', { token: cluster.rootToken })).data;
    expect(status).toMatchObject({ consecutive_errors: 0, last_snapshot_error: '' });
  }, 120_000);
});
