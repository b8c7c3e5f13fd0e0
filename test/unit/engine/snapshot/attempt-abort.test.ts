// An aborted attempt (deadline, restore, shutdown) or one whose config was deleted starts no
// further store operation: before the fix the orphan deletes and the rotation went on (in the
// background after an abort, or past a config delete that came mid-rotation), deleting objects
// the operator was reading.

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
  dir = await mkdtemp(join(tmpdir(), 'kw-attempt-abort-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A local target that records deletes and aborts the attempt during the first one. */
class AbortingTarget extends LocalTarget {
  readonly deletes: string[] = [];
  /** What happens during the first delete (default: the attempt is aborted). */
  onFirstDelete = () => this.abort.abort(new Error('the attempt deadline passed'));
  constructor(
    out: string,
    private readonly abort: AbortController,
  ) {
    super({ dir: out, filePrefix: 'vault-snapshot', maxSpace: 1e9 });
  }
  override async delete(name: string): Promise<void> {
    this.deletes.push(name);
    if (this.deletes.length === 1) this.onFirstDelete();
    await new Promise((r) => setTimeout(r, 10));
    return super.delete(name);
  }
}

async function setup(oldSnapshots: number) {
  const out = join(dir, 'out');
  const storage = new MemoryStorage();
  await storage.put('k', randomBytes(100));
  const sys = systemContext({ storage, clock: new ManualClock(T0), dataDir: join(dir, 'data') });
  await mkdir(out, { recursive: true });
  for (let i = 1; i <= oldSnapshots; i++) await writeFile(join(out, `vault-snapshot-${i}.snap`), 'old');
  const abort = new AbortController();
  const target = new AbortingTarget(out, abort);
  const config = validateSnapshotConfigWrite({ storage_type: 'local', interval: 60, retain: 1, path_prefix: out, local_max_space: 1e9 }).config;
  const plan = { target, name: `vault-snapshot-${T0}000000.snap`, url: '' };
  return { sys, out, abort, target, config, plan };
}

const settle = () => new Promise((r) => setTimeout(r, 200));

it('stops rotating once aborted: no delete starts after the one in flight', async () => {
  const { sys, out, abort, target, config, plan } = await setup(5);
  const r = await runAttempt(sys, config, plan, T0, { signal: abort.signal, stillWanted: () => true });
  expect(r.retentionError).toMatch(/^retention failed: .*the attempt deadline passed/);
  await settle();
  expect(target.deletes).toHaveLength(1);
  expect((await readdir(out)).filter((n) => n.endsWith('.snap'))).toHaveLength(5); // 6 written, 1 rotated
});

it('stops deleting orphans once aborted, and rotates nothing', async () => {
  const { sys, abort, target, config, plan } = await setup(3);
  const orphans = ['vault-snapshot-7.snap', 'vault-snapshot-8.snap', 'vault-snapshot-9.snap'];
  const r = await runAttempt(sys, config, plan, T0, { signal: abort.signal, stillWanted: () => true, orphans });
  await settle();
  expect(target.deletes).toEqual(['vault-snapshot-7.snap']);
  expect(r.orphansLeft).toEqual(orphans); // the aborted one's delete may or may not have landed
});

it('stops rotating when its config is deleted mid-rotation', async () => {
  const { sys, out, abort, target, config, plan } = await setup(5);
  let wanted = true;
  target.onFirstDelete = () => (wanted = false);
  await runAttempt(sys, config, plan, T0, { signal: abort.signal, stillWanted: () => wanted });
  await settle();
  expect(target.deletes).toHaveLength(1);
  expect((await readdir(out)).filter((n) => n.endsWith('.snap'))).toHaveLength(5);
});
