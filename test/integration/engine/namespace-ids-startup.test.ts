// The engine refuses to start on a store where two namespaces share an id (issue 32): their
// policies, mounts and tokens, all keyed by id, could not be told apart.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, startTestEngine, startTestEngineWithStore } from '../../support/engine';

it('a store with two namespaces sharing an id is refused at start, naming both', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kw-nsid-'));
  try {
    const { engine, store } = await startTestEngineWithStore({ dataDir });
    const a = (await api(engine, 'POST', 'sys/namespaces/tenant-a')).body.data;
    await api(engine, 'POST', 'sys/namespaces/tenant-b');
    expect(a.id).toMatch(/^[A-Za-z0-9]{6}$/);
    // What a 20-bit id clash used to leave behind: tenant-b stored with tenant-a's id.
    await store.put('sys/namespaces/tenant-b/', { id: a.id, path: 'tenant-b/', custom_metadata: {} });
    await engine.close();
    await expect(startTestEngine({ dataDir })).rejects.toThrow(`namespaces "tenant-a/" and "tenant-b/" share the id "${a.id}"`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
