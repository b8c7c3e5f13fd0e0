// The server process logs an unhandled rejection instead of dying from it (Node's default exits).

import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

it('logs an unhandled rejection and keeps the process running', async () => {
  const server = resolve(__dirname, '../../../src/cli/commands/server.ts');
  const script = `
    const { installRejectionLogger } = require(${JSON.stringify(server)});
    const { createLogger } = require(${JSON.stringify(resolve(__dirname, '../../../src/engine/log.ts'))});
    installRejectionLogger(createLogger('error'));
    Promise.reject(new Error('storage went away'));
    setTimeout(() => process.stdout.write('still running'), 50);
  `;
  const { stdout, stderr } = await run(process.execPath, ['-r', 'tsx/cjs', '-e', script], { cwd: resolve(__dirname, '../../..') });
  expect(stdout).toBe('still running');
  expect(stderr).toMatch(/"level":"error","msg":"unhandled rejection","error":"Error: storage went away"/);
});
