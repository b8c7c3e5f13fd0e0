// Crash safety: SIGKILL a child-process engine while it writes a local snapshot (the moment its
// temp file appears); after a restart no partial file exists under a final snapshot name, leftovers
// are cleaned, and the next snapshot succeeds and is a complete, restorable archive.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { watch } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pauseMidWrite } from '../../support/pause-mid-write';
import { api } from '../../support/engine';

const TOKEN = 'kill-test-root';
const BIN = resolve(__dirname, '../../../bin/keyward.js');

interface Child {
  proc: ChildProcess;
  url: string;
}

function startChild(dataDir: string): Promise<Child> {
  const proc = spawn(process.execPath, [BIN, 'server', '--dev', '--listen', '127.0.0.1:0', '--root-token', TOKEN, '--data-dir', dataDir, '--log-level', 'off'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((ok, fail) => {
    let out = '';
    let err = '';
    proc.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) ok({ proc, url: m[1] });
    });
    proc.once('exit', (code) => fail(new Error(`engine exited (${code}) before listening: ${out} ${err}`)));
  });
}

async function stopChild(c: Child | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!c || c.proc.exitCode !== null || c.proc.signalCode !== null) return;
  const exited = new Promise((r) => c.proc.once('exit', r));
  c.proc.kill(signal);
  await exited;
}

/** Resolves once `check` holds, re-checking whenever something changes in `dir` (and on a slow tick). */
function waitFor<T>(dir: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  return new Promise((ok, fail) => {
    let done = false;
    const watcher = watch(dir, () => void probe());
    const tick = setInterval(() => void probe(), 100);
    const timer = setTimeout(() => finish(new Error('timed out waiting for the snapshot')), timeoutMs);
    const finish = (e?: Error, v?: T) => {
      if (done) return;
      done = true;
      watcher.close();
      clearInterval(tick);
      clearTimeout(timer);
      if (e) fail(e);
      else ok(v as T);
    };
    const probe = async () => {
      try {
        const v = await check();
        if (v !== undefined) finish(undefined, v);
      } catch (e) {
        finish(e as Error);
      }
    };
    void probe();
  });
}

let root: string;
let child: Child | undefined;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'kw-kill-'));
});
afterAll(async () => {
  await stopChild(child, 'SIGKILL');
  await rm(root, { recursive: true, force: true });
});

const FINAL = /^vault-snapshot-\d+\.snap$/;

it('SIGKILL during a snapshot leaves nothing partial under a final name; the next snapshot succeeds', async () => {
  const dataDir = join(root, 'data');
  const out = join(root, 'snapshots');
  await mkdir(out, { recursive: true });
  child = await startChild(dataDir);

  // About 24 MB of incompressible policy text, so the copy into place takes a while.
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < 60) {
        const i = next++;
        const filler = randomBytes(200_000).toString('base64');
        const r = await api(child!.url, 'PUT', `sys/policy/big${i}`, { token: TOKEN, body: { policy: `# ${filler}\npath "secret/${i}" { capabilities = ["read"] }` } });
        if (r.status !== 204) throw new Error(`policy write failed: ${r.status} ${r.text}`);
      }
    }),
  );

  // The engine is paused the moment its temp file appears, so the kill lands mid-write (a write
  // that finished first is let go, and the next attempt, 1 s later, is caught).
  const partialSeen = pauseMidWrite(out, [child.proc], 30_000);
  const w = await api(child.url, 'POST', 'sys/storage/raft/snapshot-auto/config/crash', {
    token: TOKEN,
    body: { storage_type: 'local', interval: '1s', path_prefix: out, local_max_space: 10 * 1024 ** 3 },
  });
  expect(w.status).toBe(204);
  const partial = await partialSeen;
  await stopChild(child, 'SIGKILL');
  const afterKill = await readdir(out);
  expect(afterKill).toContain(partial); // killed mid-write: the temp file is there...
  expect(partial).not.toMatch(FINAL); // ...and never under a final name

  child = await startChild(dataDir);
  const url = child.url;
  const status = await waitFor(out, async () => {
    const s = (await api(url, 'GET', 'sys/storage/raft/snapshot-auto/status/crash', { token: TOKEN })).body?.data;
    return s?.last_snapshot_end && s.last_snapshot_error === '' ? s : undefined;
  });
  expect(status.consecutive_errors).toBe(0);
  const names = await readdir(out);
  expect(names.filter((n) => n === partial)).toEqual([]); // leftover temp file cleaned at start
  expect(names.filter((n) => FINAL.test(n)).length).toBeGreaterThanOrEqual(1);

  // The new snapshot is complete: the engine accepts it as a verified restore. Deleting the config
  // first stops rotation, so the newest file stays put.
  await api(url, 'DELETE', 'sys/storage/raft/snapshot-auto/config/crash', { token: TOKEN });
  const newest = (await readdir(out))
    .filter((n) => FINAL.test(n))
    .sort()
    .at(-1)!;
  const r = await api(url, 'POST', 'sys/storage/raft/snapshot', { token: TOKEN, rawBody: await readFile(join(out, newest)) });
  expect([r.status, r.text]).toEqual([204, '']);
  expect((await api(url, 'GET', 'sys/policy/big59', { token: TOKEN })).status).toBe(200);
  await stopChild(child, 'SIGTERM');
});
