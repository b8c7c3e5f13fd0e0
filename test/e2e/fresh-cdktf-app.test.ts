// A stranger's first week, by the README's Installation steps: a fresh `cdktf init
// --template=typescript` app, keyward's packed tarball installed into it, `keyward server --dev` from
// the app's node_modules/.bin, `cdktf deploy`, then the pull-request plan after a role is removed
// lists the deletion and exits 2 with --detailed-exitcode (secrets unset: plan-only mode).
// Slow (npm pack builds dist; the install builds better-sqlite3 from source when no prebuilt binary
// can be downloaded) and needs the npm registry, as `cdktf init` and the README do.
// `cdktf init` is run with the repo's cdktf-cli (the user's global one); every later `cdktf` is the
// app's own, installed as the README says.

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { runAsync } from '../support/run-async';
import { serviceAccountKeyJson } from '../unit/constructs/fixtures';

const REPO = resolve(__dirname, '../..');
const CDKTF = join(REPO, 'node_modules', '.bin', 'cdktf');
const README = readFileSync(join(REPO, 'README.md'), 'utf8');

const MAIN_TS = `import { App, TerraformStack } from 'cdktf';
import { CloudAuthBackend, CloudAuthRole, KeywardServer, secretFromEnv } from 'keyward/constructs';

const app = new App();
const stack = new TerraformStack(app, 'platform');
const server = new KeywardServer(stack, 'server', { address: process.env.STACK_ADDR! });
const cloud = new CloudAuthBackend(stack, 'cloud', { server, config: { credentials: secretFromEnv('GCP_AUTH_CREDENTIALS') } });
CloudAuthRole.iam(stack, 'web', { backend: cloud, boundServiceAccounts: ['web@p.iam.gserviceaccount.com'], tokenPolicies: ['web'] });
if (!process.env.DROP_BATCH) CloudAuthRole.iam(stack, 'batch', { backend: cloud, boundServiceAccounts: ['batch@p.iam.gserviceaccount.com'] });
app.synth();
`;

describe('a fresh cdktf app with the packed tarball, by the README', () => {
  const dirs: string[] = [];
  let server: ChildProcess | undefined;
  afterAll(() => {
    server?.kill('SIGTERM');
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  });

  it('installs, synthesizes, deploys, and the PR plan lists a removed role (exit 2)', async () => {
    const work = mkdtempSync(join(tmpdir(), 'kw-fresh-app-'));
    dirs.push(work);
    const env: NodeJS.ProcessEnv = { ...process.env, CHECKPOINT_DISABLE: '1', CDKTF_DISABLE_PLUGIN_CACHE_ENV: '1', CI: '1', FORCE_COLOR: '0' };
    delete env.VAULT_ADDR;
    delete env.VAULT_TOKEN;
    // Native modules (cdktf-cli's node-pty has prebuilt binaries up to Node 22) build against the
    // Node that runs the test, as on a user's machine: this machine's npm config points node-gyp at
    // the image's Node 20 headers, which would give Node 24 a Node 20 binary.
    const nodeDir = dirname(dirname(process.execPath));
    if (existsSync(join(nodeDir, 'include', 'node', 'node.h'))) env.npm_config_nodedir = nodeDir;
    const sh = async (cmd: string, args: string[], cwd: string, extra: NodeJS.ProcessEnv = {}) => {
      const r = await runAsync(cmd, args, { cwd, env: { ...env, ...extra } });
      return { status: r.status, out: r.stdout + r.stderr };
    };

    // README: `npm pack` in the checkout (prepare builds dist).
    const packed = await sh('npm', ['pack', '--pack-destination', work], REPO);
    expect(packed).toEqual({ status: 0, out: expect.any(String) });
    const tarball = join(
      work,
      readdirSync(work).find((f) => f.endsWith('.tgz'))!,
    );

    const app = join(work, 'my-app');
    mkdirSync(app);
    // cdktf-cli reads every CDKTF_* variable as a flag and `init` refuses flags it does not know:
    // CDKTF_DISABLE_TELEMETRY (which CI sets) makes it exit 1 with "Unknown argument: disableTelemetry".
    const initEnv = { ...env };
    delete initEnv.CDKTF_DISABLE_TELEMETRY;
    const init = await runAsync(CDKTF, ['init', '--template=typescript', '--local', '--project-name', 'my-app', '--project-description', 'x', '--enable-crash-reporting=false'], {
      cwd: app,
      env: initEnv,
    }).then((r) => ({ status: r.status, out: r.stdout + r.stderr }));
    if (init.status !== 0) throw new Error(`cdktf init exited ${init.status}:\n${init.out}`);

    // The README's steps, run as written (with the tarball's path substituted).
    expect(README).toContain('npm install -D typescript@5');
    expect(README).toContain('npm install ../keyward/keyward-0.1.0.tgz');
    expect(await sh('npm', ['install', '-D', 'typescript@5'], app)).toEqual({ status: 0, out: expect.any(String) });
    const installed = await sh('npm', ['install', tarball], app);
    expect(installed).toEqual({ status: 0, out: expect.any(String) });
    expect(README).toContain('npm install -D cdktf-cli@0.21.0');
    expect(await sh('npm', ['install', '-D', 'cdktf-cli@0.21.0'], app)).toEqual({ status: 0, out: expect.any(String) });
    const cdktf = join(app, 'node_modules', '.bin', 'cdktf');
    const keyward = join(app, 'node_modules', '.bin', 'keyward');
    expect((await sh(keyward, ['--version'], app)).out.trim()).toBe(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version);

    // `keyward server --dev` from the app, on a free port; its banner gives the address and token.
    const { url, token } = await new Promise<{ url: string; token: string }>((ok, fail) => {
      server = spawn(keyward, ['server', '--dev', '--listen', '127.0.0.1:0'], { cwd: app, env });
      let out = '';
      const timer = setTimeout(() => fail(new Error(`keyward server --dev did not start:\n${out}`)), 60_000);
      const seen = (d: Buffer) => {
        out += String(d);
        const addr = /export VAULT_ADDR='([^']+)'/.exec(out)?.[1];
        const tok = /export VAULT_TOKEN='([^']+)'/.exec(out)?.[1];
        if (addr && tok) {
          clearTimeout(timer);
          ok({ url: addr, token: tok });
        }
      };
      server.stdout!.on('data', seen);
      server.stderr!.on('data', seen);
      server.on('exit', (code) => fail(new Error(`keyward server --dev exited ${code}:\n${out}`)));
    });

    writeFileSync(join(app, 'main.ts'), MAIN_TS);
    const deployEnv = { STACK_ADDR: url, VAULT_TOKEN: token, GCP_AUTH_CREDENTIALS: serviceAccountKeyJson() };
    const deployed = await sh(cdktf, ['deploy', 'platform', '--auto-approve'], app, deployEnv);
    expect(deployed.out).toContain('Apply complete!');
    expect(deployed.status).toBe(0);

    // The pull request removes a role; its plan runs with no secret set (plan-only mode).
    const prEnv = { STACK_ADDR: url, VAULT_TOKEN: token, DROP_BATCH: '1', KEYWARD_PLAN_ONLY: '1' };
    expect(await sh(cdktf, ['synth'], app, prEnv)).toEqual({ status: 0, out: expect.any(String) });
    const plan = await sh(keyward, ['plan', '--dir', 'cdktf.out', '--stack', 'platform', '--format', 'markdown', '--detailed-exitcode'], app, prEnv);
    expect(plan.out).toContain('1 to delete');
    expect(plan.out).toMatch(/#### Needs attention[\s\S]*auth\/cloud\/role\/batch<\/code> delete/);
    expect(plan.out).toContain('GCP_AUTH_CREDENTIALS');
    expect(plan.status).toBe(2);
  }, 1_200_000);
});
