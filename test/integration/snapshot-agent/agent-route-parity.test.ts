// The agent serves snapshot-auto through the engine's own request core and route table: the same
// request gets the same answer (status and body, apart from the request id) from an enterprise
// engine and from an agent in front of an oss engine. Before one table existed, the agent parsed
// `?list=` itself and read `?list=t` as a read (405) where the engine lists.

import { join } from 'node:path';
import { api, startTestEngine } from '../../support/engine';
import { AGENT_CONFIG, AGENT_STATUS, startAgentHarness, type AgentHarness } from '../../support/snapshot-agent';

let h: AgentHarness;
let enterprise: Awaited<ReturnType<typeof startTestEngine>>;
beforeEach(async () => {
  h = await startAgentHarness();
  enterprise = await startTestEngine({ clock: h.clock, edition: 'enterprise', dataDir: join(h.root, 'enterprise') });
});
afterEach(async () => {
  await enterprise.close();
  await h.close();
});

const body = (dir: string) => ({ storage_type: 'local', interval: 60, path_prefix: dir, local_max_space: 50_000_000 });

/** Status and body with the per-request id left out. */
async function answer(url: string, method: string, path: string, o: Parameters<typeof api>[3] = {}) {
  const r = await api(url, method, path, o);
  const b = r.body && typeof r.body === 'object' ? { ...r.body, request_id: r.body.request_id === undefined ? undefined : 'id' } : r.body;
  return { status: r.status, body: b };
}

describe('one snapshot-auto route table for the engine and the agent', () => {
  it('answers every ?list= spelling as the engine does', async () => {
    const a = await h.agent();
    expect((await api(enterprise, 'POST', `${AGENT_CONFIG}/daily`, { body: body(join(h.root, 'e')) })).status).toBe(204);
    expect((await api(a.url, 'POST', `${AGENT_CONFIG}/daily`, { body: body(join(h.root, 'a')) })).status).toBe(204);
    for (const q of ['true', '1', 't', 'T', 'TRUE', 'True', 'false', '0', 'f', '', 'yes']) {
      for (const path of [AGENT_CONFIG, `${AGENT_CONFIG}/`]) {
        const e = await answer(enterprise.url, 'GET', `${path}?list=${q}`);
        const g = await answer(a.url, 'GET', `${path}?list=${q}`);
        expect({ q, path, ...g }).toEqual({ q, path, ...e });
      }
    }
    // Reads, status and unknown operations on the config paths, too.
    for (const [method, path] of [
      ['GET', `${AGENT_CONFIG}/daily?list=t`],
      ['GET', `${AGENT_CONFIG}/nope`],
      ['LIST', `${AGENT_CONFIG}/daily`],
      ['PATCH', `${AGENT_CONFIG}/daily`],
      ['POST', `${AGENT_STATUS}/daily`],
      ['GET', `${AGENT_STATUS}/nope`],
    ] as const) {
      expect({ method, path, ...(await answer(a.url, method, path)) }).toEqual({ method, path, ...(await answer(enterprise.url, method, path)) });
    }
  });
});
