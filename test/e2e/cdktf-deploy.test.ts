// End to end with the real terraform CLI through cdktf, offline, against the embedded engine:
// deploy -> redeploy (no write) -> diff -> change one role (readers never see it missing) ->
// remove a role -> destroy (an undeclared role is left alone); then no secret anywhere on disk or
// in any output.

import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createLogger } from '../../src/engine/log';
import { api, startTestEngine, ROOT_TOKEN } from '../support/engine';
import { serviceAccountKeyJson } from '../unit/constructs/fixtures';

const REPO = resolve(__dirname, '../..');
const CDKTF = join(REPO, 'node_modules', '.bin', 'cdktf');
const TSX = join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const APP = join(__dirname, 'fixtures', 'cdktf-app.ts');

const CREDS = serviceAccountKeyJson('deployer@e2e.iam.gserviceaccount.com');
const PRIVATE_KEY_LINE = (JSON.parse(CREDS) as { private_key: string }).private_key.split('\n')[3];
const S3_SECRET = `s3secret-${randomBytes(16).toString('hex')}`;
const AZURE_KEY = randomBytes(48).toString('base64');
const SECRETS = { 'credentials JSON': CREDS, 'credentials private key line': PRIVATE_KEY_LINE, 'S3 secret key': S3_SECRET, 'Azure account key': AZURE_KEY };

const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex

/** A loopback proxy in front of the engine that records every request that can write. */
function writeRecorder(target: string): Promise<{ url: string; writes: string[]; close: () => Promise<void> }> {
  const writes: string[] = [];
  const t = new URL(target);
  const server = http.createServer((req, res) => {
    if (!['GET', 'LIST', 'HEAD'].includes(req.method ?? '')) writes.push(`${req.method} ${req.url}`);
    const up = http.request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () =>
      ok({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        writes,
        close: () => new Promise<void>((done) => server.close(() => done())),
      }),
    ),
  );
}

describe('cdktf deploy / diff / destroy with terraform (offline)', () => {
  let engine: Awaited<ReturnType<typeof startTestEngine>>;
  let proxy: Awaited<ReturnType<typeof writeRecorder>>;
  let dir: string;
  const logs: string[] = [];
  const outputs: string[] = [];

  beforeAll(async () => {
    engine = await startTestEngine({ edition: 'enterprise', logger: createLogger('debug', (line) => logs.push(line)) });
    proxy = await writeRecorder(engine.url);
    dir = mkdtempSync(join(tmpdir(), 'keyward-cdktf-e2e-'));
    writeFileSync(
      join(dir, 'cdktf.json'),
      JSON.stringify({ language: 'typescript', app: `node ${TSX} ${APP}`, projectId: 'keyward-e2e', sendCrashReports: 'false', terraformProviders: [], terraformModules: [] }),
    );
  });

  afterAll(async () => {
    await proxy?.close();
    await engine?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function scenario(s: { webTtl: string; batch: boolean }): void {
    writeFileSync(join(dir, 'scenario.json'), JSON.stringify({ address: proxy.url, ...s }));
  }

  /** Runs cdktf in the app directory; resolves with its output (secrets must never be in it). */
  function cdktf(...args: string[]): Promise<string> {
    return new Promise((ok, fail) => {
      const child: ChildProcess = spawn(CDKTF, args, {
        cwd: dir,
        env: {
          ...process.env,
          CHECKPOINT_DISABLE: '1',
          CI: '1',
          FORCE_COLOR: '0',
          VAULT_ADDR: proxy.url,
          VAULT_TOKEN: ROOT_TOKEN,
          KW_SCENARIO: join(dir, 'scenario.json'),
          KW_CREDS: CREDS,
          KW_S3_SECRET: S3_SECRET,
          TF_VAR_azure_key: AZURE_KEY,
        },
      });
      let out = '';
      child.stdout?.on('data', (d) => (out += String(d)));
      child.stderr?.on('data', (d) => (out += String(d)));
      child.on('error', fail);
      child.on('close', (code) => {
        const text = strip(out);
        outputs.push(text);
        if (code === 0) ok(text);
        else fail(new Error(`cdktf ${args.join(' ')} exited ${code}:\n${text.slice(-4000)}`));
      });
    });
  }

  const role = (name: string) => api(engine, 'GET', `auth/cloud/role/${name}`);

  it('walks deploy, no-op redeploy, diff, change, removal and destroy', async () => {
    scenario({ webTtl: '1h', batch: true });
    await cdktf('deploy', '--auto-approve');
    expect((await role('web')).body.data.token_ttl).toBe(3600);
    expect((await role('batch')).body.data.bound_labels).toEqual({ env: 'e2e' });
    const config = await api(engine, 'GET', 'auth/cloud/config');
    expect(config.body.data.client_email).toBe('deployer@e2e.iam.gserviceaccount.com');
    expect((await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/config/nightly-s3')).body.data.retain).toBe(3);
    expect((await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/config/nightly-azure')).body.data.storage_type).toBe('cloudthree-store');

    // A role created outside the stack, on the stack's mount.
    expect((await api(engine, 'POST', 'auth/cloud/role/manual', { body: { type: 'vm' } })).status).toBeLessThan(300);

    // Redeploy without a change: Terraform finds nothing to do and nothing writes to the server.
    proxy.writes.length = 0;
    const again = await cdktf('deploy', '--auto-approve');
    expect(again).toMatch(/No changes|0 added, 0 changed, 0 destroyed/);
    expect(proxy.writes).toEqual([]);

    // cdktf diff shows the changed field.
    scenario({ webTtl: '2h', batch: true });
    const diff = await cdktf('diff');
    expect(diff).toMatch(/token_ttl\s+= "1h" -> "2h"/);
    expect(diff).toMatch(/must be replaced/);

    // Change one field: only that role is written, and a reader polling it never sees it missing.
    proxy.writes.length = 0;
    const seen: number[] = [];
    let deploying = true;
    const reader = (async () => {
      while (deploying) seen.push((await role('web')).status);
    })();
    try {
      await cdktf('deploy', '--auto-approve');
    } finally {
      deploying = false;
      await reader;
    }
    expect(seen.length).toBeGreaterThan(10);
    expect(seen.every((s) => s === 200)).toBe(true);
    expect(proxy.writes).toEqual(['POST /v1/auth/cloud/role/web']);
    expect((await role('web')).body.data.token_ttl).toBe(7200);

    // Removing a role from the stack deletes it; the undeclared role stays.
    scenario({ webTtl: '2h', batch: false });
    await cdktf('deploy', '--auto-approve');
    expect((await role('batch')).status).toBe(404);
    expect((await role('manual')).status).toBe(200);

    // Destroy removes what the stack managed and leaves the undeclared role alone.
    await cdktf('destroy', '--auto-approve');
    expect((await role('web')).status).toBe(404);
    expect((await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/config/nightly-s3')).status).toBe(404);
    expect((await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/config/nightly-azure')).status).toBe(404);
    const manualAfterDestroy = (await role('manual')).status;

    // No secret in any file of the app (state, cdktf.out, plans, provisioner files) nor in any output or log.
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d)) {
        const p = join(d, e);
        if (e === '.terraform' && statSync(p).isDirectory()) continue;
        if (statSync(p).isDirectory()) walk(p);
        else files.push(p);
      }
    };
    walk(dir);
    expect(files.some((f) => /\.tfstate/.test(f))).toBe(true);
    for (const [what, value] of Object.entries(SECRETS)) {
      for (const f of files) expect({ file: f, what, found: readFileSync(f).includes(value) }).toEqual({ file: f, what, found: false });
      expect({ what, inOutput: outputs.some((o) => o.includes(value)) }).toEqual({ what, inOutput: false });
      expect({ what, inLogs: logs.some((o) => o.includes(value)) }).toEqual({ what, inLogs: false });
    }
    expect(manualAfterDestroy).toBe(200);
  }, 420_000);
});
