// The agent as its users start it (`keyward snapshot-agent --server --listen --state`, child
// processes): two agents on one state; SIGKILL of the one writing a snapshot leaves nothing under a
// final name; the other takes the config over within one interval (the dead one's lease expires),
// removes the leftover, and writes a complete archive that restores into the engine.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { api, ROOT_TOKEN, startTestEngine } from '../../support/engine';
import { finalOf, pauseMidWrite } from '../../support/pause-mid-write';
import { until } from '../../support/poll';

const BIN = resolve(__dirname, '../../../bin/keyward.js');
const FINAL = /^vault-snapshot-\d+\.snap$/;
const INTERVAL_S = 10;

interface Child {
  proc: ChildProcess;
  url: string;
  /** The agent's id in the leases it writes. */
  id: string;
}

function startAgent(server: string, state: string): Promise<Child> {
  const proc = spawn(process.execPath, [BIN, 'snapshot-agent', '--server', server, '--listen', '127.0.0.1:0', '--state', state, '--log-level', 'off'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    // The agents' scratch directories (spooled archives) live in the test's own directory.
    env: { ...process.env, VAULT_TOKEN: ROOT_TOKEN, TMPDIR: join(root, 'tmp') },
  });
  return new Promise((ok, fail) => {
    let out = '';
    let err = '';
    proc.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*agent id ([0-9a-f-]+)/.exec(out);
      if (m) ok({ proc, url: m[1], id: m[2] });
    });
    proc.once('exit', (code) => fail(new Error(`agent exited (${code}) before listening: ${out} ${err}`)));
  });
}

async function stop(c: Child | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!c || c.proc.exitCode !== null || c.proc.signalCode !== null) return;
  const exited = new Promise((r) => c.proc.once('exit', r));
  c.proc.kill(signal);
  await exited;
}

let root: string;
let engine: Awaited<ReturnType<typeof startTestEngine>>;
const children: Child[] = [];
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'kw-agent-kill-'));
  engine = await startTestEngine({ edition: 'oss' });
});
afterAll(async () => {
  for (const c of children) await stop(c, 'SIGKILL');
  await engine.close();
  await rm(root, { recursive: true, force: true });
});

/** The id in the newest lease record under the state directory. */
async function leaseHolder(state: string): Promise<string | undefined> {
  const dir = join(state, 'lease', 'crash');
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => !n.startsWith('.')).sort();
  if (names.length === 0) return undefined;
  return (JSON.parse(await readFile(join(dir, names.at(-1)!), 'utf8')) as { owner: string }).owner;
}

it('SIGKILL mid-write leaves nothing partial under a final name; the other agent takes over within one interval', async () => {
  const out = join(root, 'snapshots');
  const state = join(root, 'state');
  await mkdir(out, { recursive: true });
  await mkdir(join(root, 'tmp'), { recursive: true });
  // About 24 MB of incompressible policy text, so writing the snapshot takes a while.
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < 60) {
        const i = next++;
        const filler = randomBytes(200_000).toString('base64');
        const r = await api(engine, 'PUT', `sys/policy/big${i}`, { body: { policy: `# ${filler}\npath "secret/${i}" { capabilities = ["read"] }` } });
        if (r.status !== 204) throw new Error(`policy write failed: ${r.status} ${r.text}`);
      }
    }),
  );

  const agents = await Promise.all([startAgent(engine.url, state), startAgent(engine.url, state)]);
  children.push(...agents);
  // Both agents are paused the moment the temporary file appears: the kill lands mid-write.
  const caught = pauseMidWrite(
    out,
    agents.map((x) => x.proc),
    60_000,
  );
  const w = await api(agents[0].url, 'POST', 'sys/storage/raft/snapshot-auto/config/crash', {
    body: { storage_type: 'local', interval: `${INTERVAL_S}s`, retain: 100, path_prefix: out, local_max_space: 10 * 1024 ** 3 },
  });
  expect(w.status).toBe(204);
  const partial = await caught;
  // The agent writing it holds the slot's lease.
  const holder = await until('the slot lease', () => leaseHolder(state));
  const a = agents.find((x) => x.id === holder)!;
  const b = agents.find((x) => x.id !== holder)!;
  expect(a).toBeDefined();
  await stop(a, 'SIGKILL');
  b.proc.kill('SIGCONT');
  const killedAt = Date.now();
  const afterKill = await readdir(out);
  expect(afterKill).not.toContain(finalOf(partial)); // killed mid-write: nothing under its final name
  expect(afterKill).toContain(partial);
  expect((await readdir(join(root, 'tmp'))).filter((n) => n.startsWith(`keyward-agent-${a.proc.pid}-`))).toHaveLength(1); // its spool, left by the kill
  // The other agent serves the same config from the shared state.
  expect((await api(b.url, 'GET', 'sys/storage/raft/snapshot-auto/config?list=true')).body.data.keys).toEqual(['crash']);
  const status = await until(
    'a snapshot by the other agent',
    async (): Promise<{ last_snapshot_start: string; consecutive_errors: number } | undefined> => {
      const s = (await api(b.url, 'GET', 'sys/storage/raft/snapshot-auto/status/crash')).body?.data;
      return s?.last_snapshot_end && s.last_snapshot_error === '' ? s : undefined;
    },
    Boolean,
    { timeoutMs: 60_000 },
  ).then((s) => s!);
  expect(status.consecutive_errors).toBe(0);
  // Taken over within one interval of the kill (status times have whole seconds).
  expect(Date.parse(status.last_snapshot_start) - killedAt).toBeLessThanOrEqual(INTERVAL_S * 1000);
  const names = await readdir(out);
  expect(names).not.toContain(partial); // the killed agent's leftover is gone
  const finals = names.filter((n) => FINAL.test(n)).sort();
  expect(finals.length).toBeGreaterThanOrEqual(1);
  // The snapshot is complete: the engine accepts it as a verified restore.
  // A later start removes the killed agent's scratch directory, never a live agent's.
  const c = await startAgent(engine.url, state);
  children.push(c);
  const scratch = await readdir(join(root, 'tmp'));
  expect(scratch.filter((n) => n.startsWith(`keyward-agent-${a.proc.pid}-`))).toEqual([]);
  expect(scratch.filter((n) => n.startsWith(`keyward-agent-${b.proc.pid}-`))).toHaveLength(1);
  await stop(c, 'SIGTERM');
  await api(b.url, 'DELETE', 'sys/storage/raft/snapshot-auto/config/crash');
  const r = await api(engine, 'POST', 'sys/storage/raft/snapshot', { rawBody: await readFile(join(out, finals.at(-1)!)) });
  expect([r.status, r.text]).toEqual([204, '']);
  expect((await api(engine, 'GET', 'sys/policy/big59')).status).toBe(200);
  await stop(b, 'SIGTERM');
}, 180_000);
