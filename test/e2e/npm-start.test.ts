// `npm start` (scripts/start.ts) completes offline: engine and emulator up, examples/basic deployed
// with `cdktf deploy` (terraform is on PATH here, so the fallback `keyward apply --app` must not
// run) with its keyless mount, a working login, a keyless login (no key stored, the emulator
// verified the engine's identity token) and a snapshot printed, everything stopped.

import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

const REPO = resolve(__dirname, '../..');

it('npm start deploys the basic example with cdktf deploy, offline, logs in and takes a snapshot', async () => {
  const { code, out } = await new Promise<{ code: number | null; out: string }>((ok, fail) => {
    const child = spawn(process.execPath, [join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(REPO, 'scripts', 'start.ts')], {
      cwd: REPO,
      // Offline: anything that tries the network (a registry, a version check) meets a closed port.
      env: { ...process.env, CHECKPOINT_DISABLE: '1', HTTPS_PROXY: 'http://127.0.0.1:9', HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: '127.0.0.1,localhost' },
    });
    let text = '';
    child.stdout.on('data', (d) => (text += String(d)));
    child.stderr.on('data', (d) => (text += String(d)));
    child.on('error', fail);
    child.on('close', (c) => ok({ code: c, out: text }));
  });
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
  expect(out).toMatch(/GET sys\/storage\/raft\/snapshot -> \S+ \(\d+ bytes\)/);
  expect(out).toMatch(/To continue yourself/);
}, 240_000);
