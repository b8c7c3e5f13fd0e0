// Database files are the owner's only (0600), also in a data directory that already existed and
// for files an older keyward left 0644 (issue 32).

import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, startTestEngine } from '../../support/engine';

const mode = (f: string) => statSync(f).mode & 0o777;

it('keyward.db and its -wal and -shm files are 0600 in an existing 0755 data directory, and tightened on restart', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'kw-modes-'));
  const dataDir = join(parent, 'data');
  mkdirSync(dataDir, { mode: 0o755 });
  chmodSync(dataDir, 0o755);
  try {
    const db = join(dataDir, 'keyward.db');
    let engine = await startTestEngine({ dataDir });
    expect((await api(engine, 'PUT', 'sys/policy/p', { body: { policy: 'path "a" { capabilities = ["read"] }' } })).status).toBe(204);
    for (const f of [db, `${db}-wal`, `${db}-shm`]) {
      expect(existsSync(f)).toBe(true);
      expect(mode(f).toString(8)).toBe('600');
    }
    await engine.close();
    // Files an earlier version (or a copy) left world-readable are tightened at the next start.
    for (const f of [db, `${db}-wal`, `${db}-shm`]) if (existsSync(f)) chmodSync(f, 0o644);
    engine = await startTestEngine({ dataDir });
    for (const f of [db, `${db}-wal`, `${db}-shm`]) if (existsSync(f)) expect(mode(f).toString(8)).toBe('600');
    await engine.close();
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});
