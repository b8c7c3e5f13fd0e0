// `npm start` (scripts/start.ts) completes offline: engine and emulator up, examples/basic deployed
// with `cdktf deploy` (terraform is on PATH here, so the fallback `keyward apply --app` must not
// run) with its keyless mount, a working login, a keyless login (no key stored, the emulator
// verified the engine's identity token) and a snapshot printed, everything stopped. It leaves
// nothing behind in the temp directory (its work directory holds the engine's seal key), neither
// when it completes nor when it is interrupted with SIGINT (Ctrl-C) or SIGTERM.

import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO = resolve(__dirname, '../..');

let temp: string;
beforeEach(() => {
  temp = mkdtempSync(join(tmpdir(), 'kw-npm-start-'));
});
afterEach(() => rmSync(temp, { recursive: true, force: true }));

/** What npm start left in its temp directory (tsx's own compile cache aside: it is tsx's, reused by every run). */
const leftBehind = () => readdirSync(temp).filter((name) => !name.startsWith('tsx-'));

/** Runs npm start with its own TMPDIR; `interrupt` sends that signal once the output matches `when`. */
function npmStart(interrupt?: { signal: NodeJS.Signals; when: RegExp }): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> {
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, [join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(REPO, 'scripts', 'start.ts')], {
      cwd: REPO,
      // Offline: anything that tries the network (a registry, a version check) meets a closed port.
      env: { ...process.env, TMPDIR: temp, CHECKPOINT_DISABLE: '1', HTTPS_PROXY: 'http://127.0.0.1:9', HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: '127.0.0.1,localhost' },
    });
    let text = '';
    let sent = false;
    const onData = (d: Buffer) => {
      text += String(d);
      if (interrupt && !sent && interrupt.when.test(text)) {
        sent = true;
        child.kill(interrupt.signal);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', fail);
    child.on('close', (code, signal) => ok({ code, signal, out: text }));
  });
}

it('npm start deploys the basic example with cdktf deploy, offline, logs in and takes a snapshot, and leaves nothing behind', async () => {
  const { code, out } = await npmStart();
  expect({ code, tail: code === 0 ? '' : out.slice(-3000) }).toEqual({ code: 0, tail: '' });
  expect(out).toMatch(/cdktf deploy: terraform ran the keyward provider/);
  expect(out).not.toMatch(/applied the same stack with `keyward apply --app`/);
  expect(out).toMatch(/auth\/cloud roles: app, web/);
  // The keyless mount came from examples/basic through cdktf deploy, not from direct API calls.
  expect(out).toMatch(/auth\/keyless roles: app \(workload identity federation, configured without a key\)/);
  expect(out).toMatch(/snapshot configs: hourly/);
  expect(out).toMatch(/POST auth\/cloud\/login -> token \S+/);
  expect(out).toMatch(/policies \["app","default"\]/);
  expect(out).toMatch(/lookup-self with the new token: ok/);
  expect(out).toMatch(/auth\/keyless\/config: service_account_email keyward@ops-project\S+, private_key_id \(none: no key stored\)/);
  expect(out).toMatch(/POST auth\/keyless\/login -> token \S+, policies \["app","default"\]/);
  expect(out).toMatch(
    /the emulator verified 1 plugin identity token\(s\) against \S+\/v1\/identity\/oidc\/plugins\/.well-known\/keys and let 1 federated principal\(s\) impersonate/,
  );
  expect(out).toMatch(/GET sys\/storage\/raft\/snapshot -> \(\d+ bytes\)/);
  expect(out).toMatch(/To continue yourself/);
  expect(leftBehind()).toEqual([]);
}, 240_000);

it.each(['SIGINT', 'SIGTERM'] as const)(
  'npm start interrupted with %s during the deploy stops and removes its work directory (the seal key with it)',
  async (signal) => {
    const r = await npmStart({ signal, when: /\[2\/6\] Deploying/ });
    expect({ exited: r.code !== 0 || r.signal !== null, left: leftBehind() }).toEqual({ exited: true, left: [] });
    expect(r.out).toMatch(/interrupted: stopped the engine and the emulator and removed the work directory/);
  },
  120_000,
);
