// The SQLite layer never aborts Node: Node >= 22 loads better-sqlite3 13 (Node-API), Node 20 loads
// 12. A process that opens a store, reads a snapshot through the reader thread and exits, closed
// or not, ends with status 0 (better-sqlite3 12 on Node 24 died of SIGABRT there, from its
// destructors running after the thread's environment was gone). CI runs this on every supported Node.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database, { NODE_MAJOR, SQLITE_PACKAGE } from '../../../../src/engine/storage/sqlite-driver';

const ROOT = resolve(__dirname, '../../../..');

test('the package loaded suits the running Node', () => {
  const { version } = require(`${SQLITE_PACKAGE}/package.json`) as { version: string };
  const major = Number(version.split('.')[0]);
  if (NODE_MAJOR >= 22) expect(major).toBeGreaterThanOrEqual(13);
  else expect(major).toBe(12);
  const db = new Database(':memory:');
  expect(db.prepare('SELECT 1 AS one').get()).toEqual({ one: 1 });
  db.close();
});

const SCRIPT = `
const { SqliteStorage } = require(${JSON.stringify(join(ROOT, 'src/engine/storage/sqlite'))});
(async () => {
  const s = new SqliteStorage(process.argv[1] + '/db');
  for (let i = 0; i < 200; i++) await s.put('k' + i, Buffer.alloc(100, i));
  for (let round = 0; round < 3; round++) {
    const view = await s.snapshot();
    let n = 0;
    for await (const c of view.chunks()) n += c.length;
    view.close();
  }
  if (process.argv[2] === 'close') await s.close();
  // Garbage left for the exit: statements and views dropped without a collection.
})().catch((e) => { console.error(e); process.exit(3); });
`;

test.each(['close', 'no-close'])('a process that reads snapshots and exits (%s) ends with status 0', (how) => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-sqlite-driver-'));
  try {
    const r = spawnSync(process.execPath, ['--require', require.resolve('tsx/cjs'), '--expose-gc', '-e', SCRIPT, dir, how], { encoding: 'utf8', timeout: 60_000 });
    expect({ status: r.status, signal: r.signal, stderr: r.stderr }).toEqual({ status: 0, signal: null, stderr: '' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
