// The snapshot agent as a Vault endpoint to the real `bao` CLI: with BAO_ADDR pointing at an agent
// in front of real OpenBao, `bao status` and `bao token lookup` answer with the server's own
// answers (forwarded with the caller's token), `bao write/read/list/delete` work on the
// snapshot-auto paths the agent serves, a token created through the agent is real on the server,
// and a token revoked on the server is refused through the agent at once (nothing cached).

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSnapshotAgent, type SnapshotAgent } from '../../src/snapshot-agent/agent';
import { bao, realServerTools, startOpenBaoDev, type OpenBaoDev } from '../support/openbao';

/** The real CLI, asynchronously: the agent answers from this very process. */
function runBao(args: string[], o: { addr: string; token?: string }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(realServerTools().bao, args, { env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), BAO_ADDR: o.addr, ...(o.token ? { BAO_TOKEN: o.token } : {}) } });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d) => (stdout += d));
    c.stderr.on('data', (d) => (stderr += d));
    c.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let s: OpenBaoDev;
let agent: SnapshotAgent;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kw-agent-bao-cli-'));
  s = await startOpenBaoDev();
  agent = await startSnapshotAgent({ server: s.url, listen: '127.0.0.1:0', state: join(dir, 'state'), env: { VAULT_TOKEN: s.token } });
}, 60_000);
afterAll(async () => {
  await agent?.close();
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

const CONFIG = 'sys/storage/raft/snapshot-auto/config';

it('bao status and bao token lookup through the agent show the server', async () => {
  const status = await runBao(['status', '-format=json'], { addr: agent.url });
  expect(status).toMatchObject({ code: 0 });
  const st = JSON.parse(status.stdout) as { sealed: boolean; version: string; type: string };
  expect(st).toMatchObject({ sealed: false, version: realServerTools().baoVersion });
  const direct = JSON.parse((await runBao(['status', '-format=json'], { addr: s.url })).stdout) as Record<string, unknown>;
  expect(st).toEqual(direct);
  const lookup = await runBao(['token', 'lookup', '-format=json'], { addr: agent.url, token: s.token });
  expect(lookup.code).toBe(0);
  expect(JSON.parse(lookup.stdout).data).toMatchObject({ id: s.token, policies: ['root'] });
});

it('bao write, read, list and delete on the snapshot-auto paths', async () => {
  const t = { addr: agent.url, token: s.token };
  const w = await runBao(['write', `${CONFIG}/daily`, 'storage_type=local', 'interval=1h', `path_prefix=${join(dir, 'snaps')}`, 'local_max_space=100000000', 'retain=3'], t);
  expect(w).toMatchObject({ code: 0, stdout: expect.stringContaining('Success! Data written to: sys/storage/raft/snapshot-auto/config/daily') });
  const r = await runBao(['read', '-format=json', `${CONFIG}/daily`], t);
  expect(JSON.parse(r.stdout).data).toEqual({
    storage_type: 'local',
    interval: 3600,
    retain: 3,
    path_prefix: join(dir, 'snaps'),
    file_prefix: 'vault-snapshot',
    autoload_enabled: false,
    local_max_space: 100000000,
  });
  const l = await runBao(['list', '-format=json', CONFIG], t);
  expect(JSON.parse(l.stdout)).toEqual(['daily']);
  const st = await runBao(['read', '-format=json', 'sys/storage/raft/snapshot-auto/status/daily'], t);
  expect(JSON.parse(st.stdout).data).toMatchObject({ consecutive_errors: 0, last_snapshot_error: '', last_snapshot_url: '' });
  expect((await runBao(['delete', `${CONFIG}/daily`], t)).code).toBe(0);
  const gone = await runBao(['read', `${CONFIG}/daily`], t);
  expect(gone.code).toBe(2);
  // The real server has no snapshot-auto: the agent is what served all of the above.
  const real = await runBao(['write', `${CONFIG}/daily`, 'storage_type=local', 'interval=1h', `path_prefix=${join(dir, 'snaps')}`, 'local_max_space=100000000'], {
    addr: s.url,
    token: s.token,
  });
  expect(real.code).toBe(2);
  expect(real.stderr).toMatch(/Code: 404[\s\S]*unsupported path/);
});

it('a token created through the agent is real; revoked on the server, it is refused through the agent', async () => {
  const created = await runBao(['token', 'create', '-policy=default', '-format=json'], { addr: agent.url, token: s.token });
  expect(created.code).toBe(0);
  const child = JSON.parse(created.stdout).auth.client_token as string;
  expect((await bao<{ data: { policies: string[] } }>(s.url, 'GET', 'auth/token/lookup-self', { token: child })).data.policies).toEqual(['default']);
  expect((await runBao(['token', 'lookup'], { addr: agent.url, token: child })).code).toBe(0);
  expect((await runBao(['token', 'revoke', child], { addr: s.url, token: s.token })).code).toBe(0);
  const refused = await runBao(['token', 'lookup'], { addr: agent.url, token: child });
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/Code: 403[\s\S]*permission denied/);
  const write = await runBao(['write', `${CONFIG}/x`, 'storage_type=local', 'interval=1h', `path_prefix=${join(dir, 'x')}`, 'local_max_space=1000'], {
    addr: agent.url,
    token: child,
  });
  expect(write.code).toBe(2);
  expect(write.stderr).toMatch(/Code: 403/);
});
