// A synth error (a construct's validation failure, an unset secret variable) prints its message
// without a stack trace; KEYWARD_DEBUG=1 brings the frames back.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { synthError } from '../../../constructs/synth-error';

const REPO = resolve(__dirname, '../../..');

const APP = `
  const { App, TerraformStack } = require('cdktf');
  const { CloudAuthBackend, KeywardServer } = require('./constructs');
  const app = new App({ outdir: require('node:os').tmpdir() + '/kw-synth-error-' + process.pid });
  const stack = new TerraformStack(app, 's');
  const server = new KeywardServer(stack, 'server', { address: 'http://127.0.0.1:8200' });
  new CloudAuthBackend(stack, 'cloud', { server, path: 'bad path!' });
  app.synth();
`;

const run = (env: Record<string, string>) =>
  spawnSync(process.execPath, ['-r', 'tsx/cjs', '-e', APP], { cwd: REPO, encoding: 'utf8', env: { ...process.env, KEYWARD_DEBUG: '', ...env }, timeout: 60_000 });

it('an invalid construct prints the message without stack frames', () => {
  const r = run({});
  expect(r.status).not.toBe(0);
  expect(r.stderr).toContain('KeywardValidationError: CloudAuthBackend at s/cloud failed validation:');
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(r.stderr).not.toContain('problems:');
}, 60_000);

it('KEYWARD_DEBUG=1 keeps the stack trace', () => {
  const r = run({ KEYWARD_DEBUG: '1' });
  expect(r.status).not.toBe(0);
  expect(r.stderr).toContain('CloudAuthBackend at s/cloud failed validation:');
  expect(r.stderr).toMatch(/^\s+at /m);
}, 60_000);

it('synthError keeps name and message as the whole stack unless asked', () => {
  expect(synthError(new Error('X is not set'), {}).stack).toBe('Error: X is not set');
  expect(synthError(new Error('X is not set'), { KEYWARD_DEBUG: '0' }).stack).toBe('Error: X is not set');
  expect(synthError(new Error('X is not set'), { KEYWARD_DEBUG: 'true' }).stack).toMatch(/\n\s+at /);
});
