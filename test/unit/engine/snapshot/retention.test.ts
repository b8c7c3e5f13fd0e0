// Retention over a real local target: newest `retain` kept by numeric timestamp, exact name
// pattern (prefixes that extend each other do not steal files), unrelated files untouched.

import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyRetention } from '../../../../src/engine/snapshot/retention';
import { LocalTarget } from '../../../../src/engine/snapshot/targets/local';
import { joinKey, listPrefix, snapshotFileName, snapshotNamePattern } from '../../../../src/engine/snapshot/targets/target';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kw-retain-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

it('keeps the newest retain snapshots of its own prefix only', async () => {
  const names = [
    'a-100.snap',
    'a-20.snap', // numerically older than a-100 although it sorts after it as text
    'a-300.snap',
    'a-b-1.snap', // file_prefix "a-b": not ours
    'a-1.snap.partial',
    '.a-5.snap.partial', // a temporary object of ours left by a crash
    '.a-b-5.snap.partial', // another config's
    'a-x.snap',
    'notes.txt',
  ];
  for (const n of names) await writeFile(join(dir, n), n);
  const t = new LocalTarget({ dir, filePrefix: 'a', maxSpace: 1e9 });
  expect(await applyRetention(t, 'a', 2)).toEqual(['a-20.snap']);
  expect((await readdir(dir)).sort()).toEqual(['.a-b-5.snap.partial', 'a-1.snap.partial', 'a-100.snap', 'a-300.snap', 'a-b-1.snap', 'a-x.snap', 'notes.txt']);
  expect(await applyRetention(t, 'a-b', 1)).toEqual([]);
});

it('names snapshots by unix nanoseconds and joins keys with exactly one slash', () => {
  expect(snapshotFileName('vault-snapshot', 1709625600021000000n)).toBe('vault-snapshot-1709625600021000000.snap');
  expect(snapshotNamePattern('v.s').test('v.s-1.snap')).toBe(true);
  expect(snapshotNamePattern('v.s').test('vxs-1.snap')).toBe(false);
  expect(joinKey('backups', 'n')).toBe('backups/n');
  expect(joinKey('/backups/', 'n')).toBe('backups/n');
  expect(listPrefix('backups')).toBe('backups/');
  expect(listPrefix('')).toBe('');
});

it('checks local_max_space before writing, counting every file with the prefix', async () => {
  await writeFile(join(dir, 'vault-snapshot-notes'), Buffer.alloc(600));
  await writeFile(join(dir, 'other.bin'), Buffer.alloc(5000));
  const t = new LocalTarget({ dir, filePrefix: 'vault-snapshot', maxSpace: 1000 });
  expect(await t.usedSpace()).toBe(600);
  const { Readable } = await import('node:stream');
  await expect(t.put('vault-snapshot-1.snap', () => Readable.from([Buffer.alloc(500)]), 500, new AbortController().signal)).rejects.toThrow(
    'snapshot of 500 bytes would exceed local_max_space (1000 bytes, 600 in use)',
  );
  expect((await readdir(dir)).sort()).toEqual(['other.bin', 'vault-snapshot-notes']);
  await t.put('vault-snapshot-1.snap', () => Readable.from([Buffer.alloc(400)]), 400, new AbortController().signal);
  expect(await t.usedSpace()).toBe(1000);
});

it('keeps the snapshot just written when the clock stepped back (order by the config sequence)', async () => {
  // Written in this order; the third one's clock had stepped back behind both earlier names.
  const written = ['s-3000.snap', 's-4000.snap', 's-1000.snap'];
  for (const n of written) await writeFile(join(dir, n), n);
  await writeFile(join(dir, 's-500.snap'), 'from before the sequence existed');
  const t = new LocalTarget({ dir, filePrefix: 's', maxSpace: 1e9 });
  const sequence = new Map(written.map((n, i) => [n, i + 1]));
  expect(await applyRetention(t, 's', 2, sequence)).toEqual(['s-3000.snap', 's-500.snap']);
  expect((await readdir(dir)).sort()).toEqual(['s-1000.snap', 's-4000.snap']);
});

it('cleans up only its own temp files, not those of a sibling prefix that starts the same', async () => {
  const files = ['.snap-1.snap.partial', '.snap-b-2.snap.partial', '.snap-x.snap.partial', 'snap-3.snap'];
  for (const n of files) await writeFile(join(dir, n), n);
  await new LocalTarget({ dir, filePrefix: 'snap', maxSpace: 1e9 }).cleanup();
  expect((await readdir(dir)).sort()).toEqual(['.snap-b-2.snap.partial', '.snap-x.snap.partial', 'snap-3.snap']);
});
