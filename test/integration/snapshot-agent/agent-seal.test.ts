// Store credentials in --state: with --seal-key-file the configs are encrypted at rest (no secret
// in any state file), another agent with the same key reads them, and one with another key or
// none does not start; without a key file they are kept as the engine's API shows them (0600).

import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { api } from '../../support/engine';
import { AGENT_CONFIG, startAgentHarness, type AgentHarness } from '../../support/snapshot-agent';

let h: AgentHarness;
beforeEach(async () => {
  h = await startAgentHarness();
});
afterEach(async () => {
  await h.close();
});

const SECRET = 'S3-SECRET-7f3a91c0de';
const s3Body = {
  storage_type: 'cloudone-store',
  interval: 3600,
  path_prefix: 'p/',
  cloudone_bucket: 'b',
  cloudone_region: 'us-east-1',
  cloudone_access_key_id: 'AKID',
  cloudone_secret_access_key: SECRET,
};

async function stateFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      if (e.isDirectory()) await walk(join(d, e.name));
      else out.push(join(d, e.name));
    }
  };
  await walk(dir);
  return out;
}

it('with a seal key file no state file holds the secret; the same key reads it back, another key refuses', async () => {
  const key = join(h.root, 'agent.key');
  const a = await h.agent({ sealKeyFile: key });
  expect((await stat(key)).mode & 0o777).toBe(0o600);
  expect((await api(a.url, 'POST', `${AGENT_CONFIG}/offsite`, { body: s3Body })).status).toBe(204);
  const files = await stateFiles(join(h.root, 'state'));
  expect(files.some((f) => f.endsWith(join('config', 'offsite')))).toBe(true);
  for (const f of files) expect((await readFile(f)).toString()).not.toContain(SECRET);
  await a.close();

  const b = await h.agent({ sealKeyFile: key });
  expect((await api(b.url, 'GET', `${AGENT_CONFIG}/offsite`)).body.data).toMatchObject({ storage_type: 'cloudone-store', cloudone_bucket: 'b' });
  await b.close();

  // An agent that cannot read the configs does not start (it would run none of their schedules).
  await expect(h.agent({ sealKeyFile: join(h.root, 'other.key') })).rejects.toThrow(/config offsite in --state was encrypted with another seal key/);
  await expect(h.agent()).rejects.toThrow(/config offsite in --state is encrypted: start the agent with the --seal-key-file/);
});

it('without a key file the config is stored with owner-only permissions, and reads never return the secret', async () => {
  const a = await h.agent();
  expect((await api(a.url, 'POST', `${AGENT_CONFIG}/offsite`, { body: s3Body })).status).toBe(204);
  const file = join(h.root, 'state', 'config', 'offsite');
  expect((await stat(file)).mode & 0o077).toBe(0);
  const read = await api(a.url, 'GET', `${AGENT_CONFIG}/offsite`);
  expect(read.text).not.toContain(SECRET);
  expect(read.body.data.cloudone_secret_access_key).toBeUndefined();
});
