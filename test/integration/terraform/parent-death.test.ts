// A provider whose terraform is killed (`terraform plan | head`: SIGPIPE, no Shutdown RPC) exits on
// its own: the provider process watches its parent and stops once it is re-parented.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { MAGIC_COOKIE_VALUE } from '../../../src/terraform/plugin/handshake';

const ENTRY = resolve(__dirname, '..', '..', 'support', 'toy-provider', 'main.js');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it('the provider exits within seconds after its parent is killed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-parent-'));
  // The "terraform": starts the provider, reports its pid once the handshake line is out, then waits.
  const host = `
    const { spawn } = require('node:child_process');
    const p = spawn(process.execPath, [${JSON.stringify(ENTRY)}], { stdio: ['ignore', 'pipe', 'inherit'] });
    p.stdout.once('data', () => process.stdout.write(p.pid + '\\n'));
    setInterval(() => {}, 1000);
  `;
  const parent = spawn(process.execPath, ['-e', host], {
    env: { ...process.env, TF_PLUGIN_MAGIC_COOKIE: MAGIC_COOKIE_VALUE, PLUGIN_PROTOCOL_VERSIONS: '6', PLUGIN_UNIX_SOCKET_DIR: dir, KEYWARD_TOY_STORE: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const pid = Number(await new Promise<string>((ok) => createInterface({ input: parent.stdout! }).once('line', ok)));
  try {
    expect(alive(pid)).toBe(true);
    parent.kill('SIGKILL');
    const deadline = Date.now() + 15_000;
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid)).toBe(false);
  } finally {
    if (alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
