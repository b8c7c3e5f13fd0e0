// The agent's own token: renewed before it expires across several TTLs (engine and agent on one
// manual clock, so the engine expires tokens by the same time), and a token file re-read when a
// sink replaces the token.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { api } from '../../support/engine';
import { AGENT_CONFIG, AGENT_STATUS, snapshotsIn, startAgentHarness, type AgentHarness } from '../../support/snapshot-agent';

let h: AgentHarness;
beforeEach(async () => {
  h = await startAgentHarness();
});
afterEach(async () => {
  await h.close();
});

const AGENT_POLICY = 'path "sys/storage/raft/snapshot" { capabilities = ["read", "sudo"] }';

async function agentToken(ttl: string): Promise<string> {
  expect((await api(h.engine, 'PUT', 'sys/policies/acl/agent', { body: { policy: AGENT_POLICY } })).status).toBe(204);
  const r = await api(h.engine, 'POST', 'auth/token/create', { body: { policies: ['agent'], ttl } });
  expect(r.status).toBe(200);
  return r.body.auth.client_token as string;
}

const lookup = async (token: string) => (await api(h.engine, 'GET', 'auth/token/lookup-self', { token })).status;

describe('snapshot agent token', () => {
  it('is renewed before expiry across three of its TTLs; an unrenewed twin expires', async () => {
    const token = await agentToken('60s');
    const twin = await agentToken('60s');
    const a = await h.agent({ env: { VAULT_TOKEN: token } });
    const dir = join(h.root, 'out');
    expect(
      (await api(a.url, 'POST', `${AGENT_CONFIG}/a`, { body: { storage_type: 'local', interval: 30, retain: 100, path_prefix: dir, local_max_space: 50_000_000 } })).status,
    ).toBe(204);
    await h.advance(200_000, 5_000);
    expect(a.tokens.renewals).toBeGreaterThanOrEqual(4);
    expect(await lookup(token)).toBe(200);
    expect(await lookup(twin)).toBe(403);
    // Every attempt over those TTLs read the managed server with a live token.
    const s = (await api(a.url, 'GET', `${AGENT_STATUS}/a`)).body.data;
    expect(s.consecutive_errors).toBe(0);
    expect((await snapshotsIn(dir)).length).toBe(6);
  });

  it('re-reads a token file when a sink replaces the token', async () => {
    const file = join(h.root, 'token');
    await writeFile(file, 'not-a-valid-token\n');
    const a = await h.agent({ env: {}, tokenFile: file });
    const dir = join(h.root, 'out');
    expect((await api(a.url, 'POST', `${AGENT_CONFIG}/a`, { body: { storage_type: 'local', interval: 60, path_prefix: dir, local_max_space: 50_000_000 } })).status).toBe(204);
    await h.advance(60_000);
    expect((await api(a.url, 'GET', `${AGENT_STATUS}/a`)).body.data.consecutive_errors).toBe(1);
    await writeFile(file, `${await agentToken('1h')}\n`);
    await h.advance(60_000);
    const s = (await api(a.url, 'GET', `${AGENT_STATUS}/a`)).body.data;
    expect(s.consecutive_errors).toBe(0);
    expect((await snapshotsIn(dir)).length).toBe(1);
  });
});
