import { generateKeyPairSync } from 'node:crypto';
// The command as a user runs it (bin/keyward.js in a child process): apply and destroy ask on a
// terminal (a real pseudo-terminal through `script`) and only "yes" goes ahead; without a terminal
// and without --auto-approve they refuse and change nothing; a cdktf project is the default source
// and its synthesis leaves no temporary directory behind; --version prints the package version.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from '../../../src/engine/engine';
import { api, ROOT_TOKEN, startTestEngine } from '../../support/engine';
import { iamRole, manifest } from './helpers';

const REPO = join(__dirname, '..', '..', '..');
const BIN = join(REPO, 'bin', 'keyward.js');

let engine: Engine;
let work: string;
let file: string;
beforeAll(async () => {
  engine = await startTestEngine({ edition: 'enterprise' });
  work = mkdtempSync(join(tmpdir(), 'keyward-approval-'));
  file = join(work, 'm.json');
  writeFileSync(file, JSON.stringify(manifest({ authBackends: [{ path: 'approval', type: 'cloud', roles: [iamRole('web')] }] })));
});
afterAll(async () => {
  await engine.close();
});

interface Run {
  code: number | null;
  out: string;
}

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ ...process.env, VAULT_ADDR: engine.url, VAULT_TOKEN: ROOT_TOKEN, ...extra });

/** Runs keyward without a terminal: stdin is a pipe that is closed at once. */
function plain(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd ?? work, env: opts.env ?? env(), stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.end();
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs keyward on a pseudo-terminal (util-linux `script`) and types `answer` at the prompt. */
function onTerminal(args: string[], answer: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const command = [process.execPath, BIN, ...args].map(shq).join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: work, env: env(), stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let answered = false;
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (!answered && out.includes('Enter a value:')) {
        answered = true;
        child.stdin.write(answer + '\n');
      }
    });
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      child.stdin.destroy();
      resolve({ code, out });
    });
  });
}

const mounted = async () => (await api(engine, 'GET', 'sys/auth')).body.data['approval/'] !== undefined;

test('apply and destroy: refused without a terminal, "no" changes nothing, "yes" goes ahead', async () => {
  const refused = await plain(['apply', '--manifest', file]);
  expect(refused.code).toBe(1);
  expect(refused.out).toContain('no terminal is attached to stdin: pass --auto-approve');
  expect(await mounted()).toBe(false);

  const declined = await onTerminal(['apply', '--manifest', file], 'no');
  expect(declined.out).toContain('+ auth/approval will be created');
  expect(declined.out).toContain("Only 'yes' will be accepted to approve.");
  expect(declined.out).toContain('Apply cancelled.');
  expect(declined.code).toBe(1);
  expect(await mounted()).toBe(false);

  const approved = await onTerminal(['apply', '--manifest', file], 'yes');
  expect(approved.out).toContain('Apply complete: 2 created');
  expect(approved.code).toBe(0);
  expect(await mounted()).toBe(true);

  const destroyRefused = await plain(['destroy', '--manifest', file]);
  expect(destroyRefused.code).toBe(1);
  expect(destroyRefused.out).toContain('pass --auto-approve to destroy without asking');
  expect(await mounted()).toBe(true);

  const keep = await onTerminal(['destroy', '--manifest', file], 'no');
  expect(keep.out).toContain('- auth/approval will be deleted');
  expect(keep.out).toContain('Destroy cancelled.');
  expect(keep.code).toBe(1);
  expect(await mounted()).toBe(true);

  const gone = await onTerminal(['destroy', '--manifest', file], 'yes');
  expect(gone.code).toBe(0);
  expect(await mounted()).toBe(false);
}, 120_000);

test('a saved plan applies without asking, without a terminal', async () => {
  const saved = join(work, 'plan.bin');
  expect((await plain(['plan', '--manifest', file, '--out', saved])).code).toBe(0);
  const applied = await plain(['apply', '--plan', saved]);
  expect(applied.out).toContain('Apply complete: 2 created');
  expect(applied.code).toBe(0);
  const destroyed = await plain(['destroy', '--manifest', file, '--auto-approve']);
  expect(destroyed.code).toBe(0);
  // A destroy ends as Terraform's does, not with "Apply complete".
  expect(destroyed.out).toContain('Destroy complete: 2 deleted.');
  expect(destroyed.out).not.toContain('Apply complete');
  expect(await mounted()).toBe(false);
}, 60_000);

test('in a cdktf project, plan with no source flag synthesizes the app and leaves no temporary directory', async () => {
  // A TMPDIR of its own, so that the check is not confused by other runs on the machine.
  const tmp = join(work, 'tmp');
  mkdirSync(tmp);
  const r = await plain(['plan', '--detailed-exitcode'], { cwd: join(REPO, 'examples', 'basic'), env: env({ TMPDIR: tmp, KEYWARD_CLOUD_CREDENTIALS: exampleKeyFile() }) });
  expect(r.out).toContain('+ auth/cloud/role/app will be created');
  expect(r.code).toBe(2);
  expect(readdirSync(tmp).filter((n) => n.startsWith('keyward-synth-'))).toEqual([]);

  const noProject = await plain(['plan'], { cwd: work });
  expect(noProject.code).toBe(1);
  expect(noProject.out).toContain('or run keyward in a cdktf project (a directory with cdktf.json)');
}, 120_000);

test('--version prints the package version', async () => {
  const r = await plain(['--version']);
  expect(r.out.trim()).toBe((JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version);
  expect(r.code).toBe(0);
});

/** A well-formed service-account key file: examples/basic refuses an unset or malformed secret at synth. */
function exampleKeyFile(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return JSON.stringify({
    type: 'service_account',
    project_id: 'demo-project',
    private_key_id: 'k1',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: 'keyward@demo-project.iam.gserviceaccount.com',
    client_id: '1',
  });
}
