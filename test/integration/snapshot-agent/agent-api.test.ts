// The agent's snapshot-auto API against the engine in oss edition, through the real sockets:
// shapes and names as the engine's, 400 naming the field with nothing stored, 403 below sudo
// (decided by the managed server's policies with the caller's token), health marked as an agent.

import { join } from 'node:path';
import { api } from '../../support/engine';
import { AGENT_CONFIG, AGENT_STATUS, startAgentHarness, type AgentHarness } from '../../support/snapshot-agent';

let h: AgentHarness;
beforeEach(async () => {
  h = await startAgentHarness();
});
afterEach(async () => {
  await h.close();
});

const localBody = (dir: string, extra: Record<string, unknown> = {}) => ({ storage_type: 'local', interval: 60, path_prefix: dir, local_max_space: 50_000_000, ...extra });

async function tokenWith(policy: string): Promise<string> {
  const name = `p${Math.random().toString(36).slice(2, 8)}`;
  expect((await api(h.engine, 'PUT', `sys/policies/acl/${name}`, { body: { policy } })).status).toBe(204);
  const r = await api(h.engine, 'POST', 'auth/token/create', { body: { policies: [name] } });
  expect(r.status).toBe(200);
  return r.body.auth.client_token as string;
}

describe('snapshot agent API', () => {
  it('writes, reads, lists and deletes configs with the engine shapes; status reads', async () => {
    const a = await h.agent();
    const dir = join(h.root, 'out');
    // The engine itself refuses (oss): the agent is what serves the feature.
    expect((await api(h.engine, 'POST', `${AGENT_CONFIG}/daily`, { body: localBody(dir) })).status).toBe(403);
    expect((await api(a.url, 'POST', `${AGENT_CONFIG}/daily`, { body: localBody(dir, { retain: 3 }) })).status).toBe(204);
    const read = await api(a.url, 'GET', `${AGENT_CONFIG}/daily`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({
      storage_type: 'local',
      interval: 60,
      retain: 3,
      path_prefix: dir,
      file_prefix: 'vault-snapshot',
      autoload_enabled: false,
      local_max_space: 50_000_000,
    });
    expect((await api(a.url, 'GET', `${AGENT_CONFIG}?list=true`)).body.data).toEqual({ keys: ['daily'] });
    expect((await api(a.url, 'LIST', AGENT_CONFIG)).body.data).toEqual({ keys: ['daily'] });
    expect((await api(a.url, 'GET', `${AGENT_STATUS}/daily`)).body.data).toEqual({ consecutive_errors: 0, next_snapshot_start: '2026-01-01T00:01:00Z' });
    expect((await api(a.url, 'DELETE', `${AGENT_CONFIG}/daily`)).status).toBe(204);
    expect((await api(a.url, 'GET', `${AGENT_CONFIG}/daily`)).status).toBe(404);
    expect((await api(a.url, 'GET', `${AGENT_STATUS}/daily`)).status).toBe(404);
    expect((await api(a.url, 'GET', `${AGENT_CONFIG}?list=true`)).status).toBe(404);
  });

  it('a bad config gets 400 naming the field and stores nothing', async () => {
    const a = await h.agent();
    const r = await api(a.url, 'POST', `${AGENT_CONFIG}/bad`, { body: { storage_type: 'local', interval: '1h', local_max_space: 1000 } });
    expect(r.status).toBe(400);
    expect(r.body.errors.join('\n')).toMatch(/path_prefix/);
    const r2 = await api(a.url, 'POST', `${AGENT_CONFIG}/bad`, { body: localBody(join(h.root, 'x'), { retain: -2 }) });
    expect(r2.status).toBe(400);
    expect(r2.body.errors.join('\n')).toMatch(/retain/);
    expect((await api(a.url, 'GET', `${AGENT_CONFIG}/bad`)).status).toBe(404);
    expect(await a.state.list('')).toEqual([]);
    const bad = await api(a.url, 'POST', `${AGENT_CONFIG}/bad`, { rawBody: '{"storage_type":' });
    expect(bad.status).toBe(400);
  });

  it('a token with less than sudo gets 403; sudo on the path is enough; no token is 403', async () => {
    const a = await h.agent();
    const dir = join(h.root, 'out');
    const noSudo = await tokenWith('path "sys/storage/raft/snapshot-auto/*" { capabilities = ["create", "read", "update", "delete", "list"] }');
    const sudo = await tokenWith('path "sys/storage/raft/snapshot-auto/*" { capabilities = ["create", "read", "update", "delete", "list", "sudo"] }');
    expect((await api(a.url, 'POST', `${AGENT_CONFIG}/c`, { token: noSudo, body: localBody(dir) })).status).toBe(403);
    expect((await api(a.url, 'POST', `${AGENT_CONFIG}/c`, { token: null, body: localBody(dir) })).status).toBe(403);
    expect((await api(a.url, 'POST', `${AGENT_CONFIG}/c`, { token: 'not-a-token', body: localBody(dir) })).status).toBe(403);
    expect(await a.state.list('config/')).toEqual([]);
    expect((await api(a.url, 'POST', `${AGENT_CONFIG}/c`, { token: sudo, body: localBody(dir) })).status).toBe(204);
    expect((await api(a.url, 'GET', `${AGENT_CONFIG}/c`, { token: noSudo })).status).toBe(403);
    expect((await api(a.url, 'GET', `${AGENT_CONFIG}/c`, { token: sudo })).status).toBe(200);
    // status needs read, not sudo (as on the engine and Vault).
    expect((await api(a.url, 'GET', `${AGENT_STATUS}/c`, { token: noSudo })).status).toBe(200);
    expect((await api(a.url, 'DELETE', `${AGENT_CONFIG}/c`, { token: noSudo })).status).toBe(403);
  });

  it("sys/health is the managed server's, marked as an agent; other paths are not served", async () => {
    const a = await h.agent();
    const health = await api(a.url, 'GET', 'sys/health', { token: null });
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ version: '1.19.0+keyward', enterprise: false, keyward_snapshot_agent: true });
    expect((await api(a.url, 'GET', 'sys/auth')).status).toBe(404);
  });
});
