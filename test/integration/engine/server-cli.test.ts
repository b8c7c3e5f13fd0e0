// `keyward server` as a user runs it: config-file mode, root token shown once, graceful shutdown,
// data kept across restarts; and dev mode's flags.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { api } from '../../support/engine';

const BIN = join(__dirname, '../../../bin/keyward.js');

function start(args: string[]): Promise<{ child: ChildProcess; url: string; output: string[] }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${output.join('\n')}`)));
    child.stderr!.on('data', (d) => output.push(String(d)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output.push(line);
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m) setTimeout(() => resolve({ child, url: m[1], output }), 50);
    });
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

it('config-file mode: root token once, graceful SIGTERM, data survives a restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-cli-'));
  const keyFile = join(dir, 'seal.key');
  writeFileSync(keyFile, randomBytes(32).toString('hex'), { mode: 0o600 });
  const config = join(dir, 'server.hcl');
  writeFileSync(config, `# keyward server\nlisten = "127.0.0.1:0"\ndata_dir = "${join(dir, 'data')}"\nseal_key_file = "${keyFile}"\nedition = "plus"\nlog_level = "warn"\n`);

  const first = await start(['server', '--config', config]);
  const token = /VAULT_TOKEN='([^']+)'/.exec(first.output.join('\n'))?.[1];
  expect(token).toBeDefined();
  expect((await api(first.url, 'PUT', 'sys/policy/kept', { token, body: { policy: 'path "a" { capabilities = ["read"] }' } })).status).toBe(204);
  expect((await api(first.url, 'GET', 'sys/license/status', { token })).body.data.edition).toBe('plus');
  expect(await stop(first.child)).toBe(0);
  expect(first.output.join('\n')).toMatch(/SIGTERM received, shutting down/);

  const second = await start(['server', '--config', config]);
  expect(second.output.join('\n')).not.toMatch(/VAULT_TOKEN/);
  expect((await api(second.url, 'GET', 'sys/policy/kept', { token })).status).toBe(200);
  expect(await stop(second.child)).toBe(0);
});

it('a bad config file is refused naming the field', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-cli-'));
  const config = join(dir, 'bad.json');
  writeFileSync(config, JSON.stringify({ data_dir: dir, seal_key_file: join(dir, 'k'), edition: 'gold' }));
  const child = spawn(process.execPath, [BIN, 'server', '--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const code = await new Promise((r) => child.on('exit', r));
  expect(code).toBe(1);
  expect(err).toMatch(/edition/);
});

it('dev mode without --data-dir removes its temporary data directory (seal.key included) on exit', async () => {
  const s = await start(['server', '--dev', '--listen', '127.0.0.1:0', '--log-level', 'off']);
  const dir = /data directory: (\S+) \(removed on exit/.exec(s.output.join('\n'))?.[1];
  expect(dir).toBeDefined();
  expect(existsSync(join(dir!, 'seal.key'))).toBe(true);
  expect(await stop(s.child)).toBe(0);
  expect(existsSync(dir!)).toBe(false);
});

it('dev mode honours --root-token and --data-dir', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-dev-'));
  const s = await start(['server', '--dev', '--listen', '127.0.0.1:0', '--root-token', 'dev-root', '--data-dir', dir, '--log-level', 'off']);
  expect(s.output.join('\n')).toMatch(/edition: enterprise, dev mode/);
  expect((await api(s.url, 'GET', 'sys/auth', { token: 'dev-root' })).status).toBe(200);
  expect(await stop(s.child)).toBe(0);
  expect(existsSync(join(dir, 'seal.key'))).toBe(true); // --data-dir is kept
});
