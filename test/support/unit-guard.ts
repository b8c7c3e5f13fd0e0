// The unit tier's guard (jest.fast.config.js, `npm run test:fast`): a unit test that starts a
// process or opens a socket fails with a message saying where it belongs. Units run in-process
// only, so the fast loop stays fast and independent of ports and binaries; anything that needs a
// process or a socket is an integration test (test/integration). Installed on load.

// require, not import: ts-jest's import interop would hand out a copy, and patching a copy guards
// nothing. Node's core modules are shared by every test file a jest worker runs: restore() puts
// the originals back where a guarded file shares a worker with unguarded ones (the plain `jest`).
const childProcess = require('node:child_process') as Record<string, unknown>;
const net = require('node:net') as typeof import('node:net');

const refuse = (what: string) => () => {
  throw new Error(`a unit test may not ${what}: move it to test/integration (test/support/unit-guard.ts)`);
};

const PROCESS_STARTS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'];
const originals = {
  cp: Object.fromEntries(PROCESS_STARTS.map((n) => [n, childProcess[n]])),
  connect: net.Socket.prototype.connect,
  listen: net.Server.prototype.listen,
};

for (const name of PROCESS_STARTS) childProcess[name] = refuse(`start a process (child_process.${name})`);
net.Socket.prototype.connect = refuse('open a socket (net.Socket.connect)') as unknown as typeof net.Socket.prototype.connect;
net.Server.prototype.listen = refuse('listen on a socket (net.Server.listen)') as unknown as typeof net.Server.prototype.listen;

export function restoreUnitGuard(): void {
  Object.assign(childProcess, originals.cp);
  net.Socket.prototype.connect = originals.connect;
  net.Server.prototype.listen = originals.listen;
}
