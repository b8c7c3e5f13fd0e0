// Security of the agent's --state and stores (issue 42, "Security"): an agent with a seal key runs
// no config planted in clear text (write access to the state prefix must not become snapshots to a
// path of the writer's choosing); sealing existing clear configs happens only through
// --seal-existing-configs, loudly; a store config without keys uses the agent's own cloud
// credentials only with --allow-ambient-credentials; --spool-dir chooses where archives are spooled.

import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../../src/engine/log';
import { api } from '../../support/engine';
import { AGENT_CONFIG, AGENT_STATUS, T0, snapshotsIn, startAgentHarness, type AgentHarness } from '../../support/snapshot-agent';

let h: AgentHarness;
beforeEach(async () => {
  h = await startAgentHarness();
});
afterEach(async () => {
  await h.close();
});

/** A logger that keeps what it is told (the agent reports refusals in its log). */
function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const put = (level: string) => (m: string, f?: Record<string, unknown>) => void lines.push(`${level} ${m} ${JSON.stringify(f ?? {})}`);
  return { lines, trace: put('trace'), debug: put('debug'), info: put('info'), warn: put('warn'), error: put('error') } as Logger & { lines: string[] };
}

const local = (dir: string) => ({ storage_type: 'local', interval: 60, retain: 3, path_prefix: dir, file_prefix: 'vault-snapshot', local_max_space: 100_000_000 });
const plant = async (name: string, config: Record<string, unknown>) => {
  await mkdir(join(h.root, 'state', 'config'), { recursive: true });
  await writeFile(join(h.root, 'state', 'config', name), JSON.stringify({ config, written_at: T0 }), { mode: 0o600 });
};

it('an agent with a seal key refuses a config planted in clear text in --state, and says so', async () => {
  const log = recordingLog();
  const a = await h.agent({ sealKeyFile: join(h.root, 'agent.key'), log });
  expect((await api(a.url, 'POST', `${AGENT_CONFIG}/good`, { body: local(join(h.root, 'good')) })).status).toBe(204);
  await plant('planted', local(join(h.root, 'attacker')));
  await h.advance(130_000);
  expect(await snapshotsIn(join(h.root, 'attacker'))).toEqual([]);
  expect((await snapshotsIn(join(h.root, 'good'))).length).toBe(2);
  expect(log.lines.join('\n')).toMatch(/error snapshot config refused .*config planted in --state is not sealed with this agent's --seal-key-file/);
  expect(a.scheduler.status('planted')).toBeUndefined();
});

it('a planted clear record over a sealed config is refused at the attempt, counted as an error in its status', async () => {
  const a = await h.agent({ sealKeyFile: join(h.root, 'agent.key') });
  expect((await api(a.url, 'POST', `${AGENT_CONFIG}/good`, { body: local(join(h.root, 'good')) })).status).toBe(204);
  await h.advance(60_000);
  await plant('good', local(join(h.root, 'attacker')));
  await h.advance(60_000);
  expect(await snapshotsIn(join(h.root, 'attacker'))).toEqual([]);
  const s = a.scheduler.status('good')!;
  expect(s.consecutive_errors).toBe(1);
  expect(s.last_snapshot_error).toMatch(/config good in --state is not sealed with this agent's --seal-key-file/);
  // Reading it through the API says why (not "internal error").
  const read = await api(a.url, 'GET', `${AGENT_STATUS}/good`);
  expect(read.status).toBe(500);
  expect(read.body.errors.join('\n')).toMatch(/config good in --state is not sealed with this agent's --seal-key-file: refused/);
});

it('existing clear configs: a first seal key refuses to start without --seal-existing-configs, and seals them with it, loudly', async () => {
  const a = await h.agent();
  expect((await api(a.url, 'POST', `${AGENT_CONFIG}/old`, { body: local(join(h.root, 'old')) })).status).toBe(204);
  await a.close();
  h.agents.length = 0;
  const key = join(h.root, 'agent.key');
  await expect(h.agent({ sealKeyFile: key })).rejects.toThrow(/config old in --state is not sealed with this agent's --seal-key-file.*--seal-existing-configs/);
  const log = recordingLog();
  const b = await h.agent({ sealKeyFile: key, sealExistingConfigs: true, log });
  expect(log.lines.join('\n')).toMatch(/warn sealed config records that were kept in clear text .*"configs":\["old"\]/);
  await b.close();
  h.agents.length = 0;
  // Sealed now: an agent with the key starts without the flag and runs it.
  const c = await h.agent({ sealKeyFile: key });
  await h.advance(60_000);
  expect((await snapshotsIn(join(h.root, 'old'))).length).toBe(1);
  expect((await api(c.url, 'GET', `${AGENT_STATUS}/old`)).body.data.consecutive_errors).toBe(0);
});

it("a store config without keys does not use the agent's ambient credentials unless --allow-ambient-credentials", async () => {
  const a = await h.agent();
  const body = { storage_type: 'cloudtwo-store', interval: 60, path_prefix: 'p/', cloudtwo_bucket: 'b', cloudtwo_endpoint: 'http://127.0.0.1:9' };
  expect((await api(a.url, 'POST', `${AGENT_CONFIG}/gcs`, { body })).status).toBe(204);
  await h.advance(60_000);
  const s = (await api(a.url, 'GET', `${AGENT_STATUS}/gcs`)).body.data;
  expect(s.consecutive_errors).toBe(1);
  expect(s.last_snapshot_error).toMatch(
    /carries no store credentials: the agent does not use its own ambient cloud credentials for it \(Google application default credentials\) unless started with --allow-ambient-credentials/,
  );
  // Refused before the managed server is read.
  expect(a.archivesRead()).toBe(0);
});

it('--spool-dir: archives are spooled there (and nothing is left behind)', async () => {
  const spool = join(h.root, 'spool');
  await mkdir(spool);
  const a = await h.agent({ spoolDir: spool });
  expect((await api(a.url, 'POST', `${AGENT_CONFIG}/a`, { body: local(join(h.root, 'out')) })).status).toBe(204);
  const entries = await readdir(spool);
  expect(entries).toHaveLength(1);
  expect(entries[0]).toMatch(new RegExp(`^keyward-agent-${process.pid}-`));
  await h.advance(60_000);
  expect((await snapshotsIn(join(h.root, 'out'))).length).toBe(1);
  expect(await readdir(join(spool, entries[0]))).toEqual([]);
});
