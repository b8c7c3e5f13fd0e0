// The unit tier's guard refuses a process start and a socket (loaded here too, so the plain `jest`
// run checks it as test:fast does).

import { restoreUnitGuard } from '../../support/unit-guard';

// Under the plain `jest` this worker may run unguarded files next: the originals go back.
afterAll(restoreUnitGuard);

test('a unit test that spawns a process or opens a socket fails, saying where it belongs', () => {
  const cp = require('node:child_process') as typeof import('node:child_process');
  const net = require('node:net') as typeof import('node:net');
  expect(() => cp.spawn('true')).toThrow('a unit test may not start a process (child_process.spawn): move it to test/integration');
  expect(() => cp.execFileSync('true')).toThrow(/child_process.execFileSync/);
  expect(() => net.createServer().listen(0)).toThrow(/net.Server.listen/);
  expect(() => net.connect(9, '127.0.0.1')).toThrow(/net.Socket.connect/);
});
