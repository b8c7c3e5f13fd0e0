// `keyward plan|apply|destroy --app` and `--dir cdktf.out` on the example stacks, without Terraform:
// apply, then an empty plan (exit 0 with --detailed-exitcode), then destroy.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { api, ROOT_TOKEN, startTestEngine } from '../support/engine';
import { serviceAccountKeyJson } from '../unit/constructs/fixtures';

const REPO = resolve(__dirname, '../..');
const TSX = join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const CREDS = serviceAccountKeyJson();
const APP = `node ${TSX} ${join(REPO, 'examples', 'basic', 'main.ts')}`;

describe('keyward --app / --dir on the basic example', () => {
  let engine: Awaited<ReturnType<typeof startTestEngine>>;
  let work: string;
  beforeAll(async () => {
    engine = await startTestEngine({ edition: 'enterprise' });
    work = mkdtempSync(join(tmpdir(), 'keyward-app-e2e-'));
  });
  afterAll(async () => {
    await engine?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  function run(cmd: string, args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
    return new Promise((ok, fail) => {
      const child = spawn(cmd, args, {
        cwd: work,
        env: {
          ...process.env,
          VAULT_ADDR: engine.url,
          VAULT_TOKEN: ROOT_TOKEN,
          KEYWARD_CLOUD_CREDENTIALS: CREDS,
          KEYWARD_SNAPSHOT_DIR: join(work, 'snaps'),
          ...extraEnv,
        },
      });
      let out = '';
      child.stdout.on('data', (d) => (out += String(d)));
      child.stderr.on('data', (d) => (out += String(d)));
      child.on('error', fail);
      child.on('close', (code) => ok({ code, out }));
    });
  }
  const keyward = (...args: string[]) => run(process.execPath, [join(REPO, 'bin', 'keyward.js'), ...args]);

  it('applies, plans no change, and destroys the stack', async () => {
    const record = join(work, 'record.json');
    const applied = await keyward('apply', '--app', APP, '--last-applied', record, '--auto-approve');
    expect(applied).toEqual({ code: 0, out: expect.stringContaining('Apply complete') });
    expect((await api(engine, 'GET', 'auth/cloud/role/app')).status).toBe(200);
    expect((await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/config/hourly')).status).toBe(200);

    const plan = await keyward('plan', '--app', APP, '--last-applied', record, '--detailed-exitcode');
    expect(plan.code).toBe(0);

    // An existing cdktf.out works too.
    const outdir = join(work, 'cdktf.out');
    expect((await run(process.execPath, [TSX, join(REPO, 'examples', 'basic', 'main.ts')], { CDKTF_OUTDIR: outdir })).code).toBe(0);
    expect((await keyward('plan', '--dir', outdir, '--last-applied', record, '--detailed-exitcode')).code).toBe(0);

    const destroyed = await keyward('destroy', '--app', APP, '--last-applied', record, '--auto-approve');
    expect(destroyed.code).toBe(0);
    expect((await api(engine, 'GET', 'auth/cloud/role/app')).status).toBe(404);
    expect((await api(engine, 'GET', 'sys/storage/raft/snapshot-auto/config/hourly')).status).toBe(404);
  }, 180_000);
});
