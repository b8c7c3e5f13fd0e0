// The client's connection pool is undici's own Agent (the same class, with the request API), and
// making it does not load undici's index (fetch, WebSocket, mocks: two thirds of undici's load).

import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const REPO = resolve(__dirname, '../../..');

it("createDispatcher makes undici's Agent without loading undici's index", () => {
  const script = `
    const { createDispatcher } = require('./src/client/options.ts');
    const d = createDispatcher({ address: 'http://127.0.0.1:1', token: 't' });
    const index = Object.keys(require.cache).some((k) => /[\\\\/]undici[\\\\/]index\\.js$/.test(k));
    const { Agent } = require('undici');
    process.stdout.write(JSON.stringify({ index, agent: d instanceof Agent, request: typeof d.request }));
    d.close().then(() => process.exit(0));
  `;
  const r = spawnSync(process.execPath, ['-r', 'tsx/cjs', '-e', script], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
  expect(r.stderr).toBe('');
  expect(JSON.parse(r.stdout)).toEqual({ index: false, agent: true, request: 'function' });
}, 60_000);
