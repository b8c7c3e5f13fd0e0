// Retention inside an attempt. The runner lists the target while the archive uploads (so the
// listing's round trip does not add to the attempt); the rotation must still see what a listing
// after the upload would: the new snapshot counted among those kept, and an orphan the attempt
// just discarded (a failed upload the store committed late) never taking a kept slot from a good
// snapshot.

import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../../src/engine/clock';
import { runAttempt } from '../../../../src/engine/snapshot/runner';
import { LocalTarget } from '../../../../src/engine/snapshot/targets/local';
import { MemoryStorage } from '../../../../src/engine/storage/memory';
import { validateSnapshotConfigWrite } from '../../../../src/schema/snapshot-validate';
import { systemContext } from '../../../support/system-context';

const T0 = Date.UTC(2026, 0, 1);
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kw-attempt-retention-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function attempt(existing: string[], retain: number, orphans: string[] = []) {
  const out = join(dir, 'out');
  await mkdir(out, { recursive: true });
  for (const n of existing) await writeFile(join(out, n), 'old');
  const storage = new MemoryStorage();
  await storage.put('k', randomBytes(100));
  const sys = systemContext({ storage, clock: new ManualClock(T0), dataDir: join(dir, 'data') });
  const config = validateSnapshotConfigWrite({ storage_type: 'local', interval: 60, retain, path_prefix: out, local_max_space: 1e9 }).config;
  const target = new LocalTarget({ dir: out, filePrefix: 'vault-snapshot', maxSpace: 1e9 });
  const name = `vault-snapshot-${T0}000000.snap`;
  const r = await runAttempt(sys, config, { target, name, url: '' }, T0, { signal: new AbortController().signal, stillWanted: () => true, orphans });
  return { r, name, files: (await readdir(out)).sort() };
}

it('counts the new snapshot among those kept', async () => {
  const { r, name, files } = await attempt(['vault-snapshot-100.snap', 'vault-snapshot-200.snap', 'vault-snapshot-300.snap'], 2);
  expect(r.deleted).toEqual(['vault-snapshot-200.snap', 'vault-snapshot-100.snap']);
  expect(files).toEqual(['vault-snapshot-300.snap', name].sort());
});

it('a discarded orphan does not take a kept slot from a good snapshot', async () => {
  // 300 is a failed upload the store committed after the attempt gave up on it: newest by name.
  const { r, name, files } = await attempt(['vault-snapshot-100.snap', 'vault-snapshot-200.snap', 'vault-snapshot-300.snap'], 2, ['vault-snapshot-300.snap']);
  expect(r).toEqual({ deleted: ['vault-snapshot-100.snap'], orphansLeft: [], size: expect.any(Number) });
  expect(files).toEqual(['vault-snapshot-200.snap', name].sort());
});
