// Vault's contract to every client: the calls terraform-provider-vault, the vault/bao CLIs and hvac
// make while configuring (auth/token/lookup-self, renew-self, create; sys/seal-status) answered
// through the agent with the managed server's own answers to the caller's own token, nothing
// cached (a revoked token is refused at once), and nothing else forwarded.

import { api } from '../../support/engine';
import { startAgentHarness, type AgentHarness } from '../../support/snapshot-agent';

let h: AgentHarness;
beforeEach(async () => {
  h = await startAgentHarness();
});
afterEach(async () => {
  await h.close();
});

const withoutId = (b: Record<string, unknown>) => ({ ...b, request_id: undefined });

describe('forwarded configure calls', () => {
  it('lookup-self, create, renew-self and seal-status answer as the managed server does; a revoked token is refused', async () => {
    const a = await h.agent();
    const direct = await api(h.engine, 'GET', 'auth/token/lookup-self');
    const via = await api(a.url, 'GET', 'auth/token/lookup-self');
    expect(via.status).toBe(200);
    expect(withoutId(via.body)).toEqual(withoutId(direct.body));
    // POST too (Vault serves it; whatever the server answers is the answer), and the seal status
    // without a token.
    const post = await api(a.url, 'POST', 'auth/token/lookup-self', { body: {} });
    const postDirect = await api(h.engine, 'POST', 'auth/token/lookup-self', { body: {} });
    expect({ status: post.status, body: withoutId(post.body) }).toEqual({ status: postDirect.status, body: withoutId(postDirect.body) });
    const seal = await api(a.url, 'GET', 'sys/seal-status', { token: null });
    expect(seal.status).toBe(200);
    expect(seal.body).toEqual((await api(h.engine, 'GET', 'sys/seal-status', { token: null })).body);
    // sys/leader, which `bao status` reads next: whatever the server answers (the engine has none).
    const leader = await api(a.url, 'GET', 'sys/leader', { token: null });
    const leaderDirect = await api(h.engine, 'GET', 'sys/leader', { token: null });
    expect({ status: leader.status, body: leader.body }).toEqual({ status: leaderDirect.status, body: leaderDirect.body });

    // terraform-provider-vault's child token: created through the agent, real on the server.
    const created = await api(a.url, 'POST', 'auth/token/create', { body: { policies: ['default'], ttl: '1h', renewable: true } });
    expect(created.status).toBe(200);
    const child = created.body.auth.client_token as string;
    expect((await api(h.engine, 'GET', 'auth/token/lookup-self', { token: child })).body.data.policies).toEqual(['default']);
    const renewed = await api(a.url, 'POST', 'auth/token/renew-self', { token: child, body: { increment: '30m' } });
    expect(renewed.status).toBe(200);
    expect(renewed.body.auth.client_token).toBe(child);

    // Revoked on the server: the next call through the agent is refused, as by the server.
    expect((await api(h.engine, 'POST', 'auth/token/revoke-self', { token: child })).status).toBe(204);
    const refused = await api(a.url, 'GET', 'auth/token/lookup-self', { token: child });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual((await api(h.engine, 'GET', 'auth/token/lookup-self', { token: child })).body);
    expect((await api(a.url, 'GET', 'auth/token/lookup-self', { token: null })).status).toBe(403);
  });

  it('forwards nothing else', async () => {
    const a = await h.agent();
    for (const [method, path] of [
      ['POST', 'auth/token/revoke-self'],
      ['POST', 'auth/token/lookup'],
      ['GET', 'sys/mounts'],
      ['POST', 'sys/capabilities-self'],
      ['GET', 'sys/storage/raft/snapshot'],
    ] as const) {
      expect({ method, path, status: (await api(a.url, method, path, { body: method === 'POST' ? {} : undefined })).status }).toEqual({ method, path, status: 404 });
    }
    // The root token still works: the refusals above revoked nothing.
    expect((await api(h.engine, 'GET', 'auth/token/lookup-self')).status).toBe(200);
  });
});
