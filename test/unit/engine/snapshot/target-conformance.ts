// The conformance suite every snapshot target passes (local directory and the three object stores
// through their emulators): round trip, listing scope, atomic publish, failure leaves nothing.

import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { SnapshotTarget } from '../../../../src/engine/snapshot/targets/target';
import { readAll } from '../../../support/read-all';

/** A signal that never aborts (puts that are not meant to be cancelled). */
const live = new AbortController().signal;

/** A source that yields `good` bytes and then fails, like a crash in the middle of an archive. */
function failingSource(good: Buffer): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (!sent) {
        sent = true;
        this.push(good);
      } else {
        setImmediate(() => this.destroy(new Error('source failed mid-stream')));
      }
    },
  });
}

export interface ConformanceSubject {
  /** A target writing under path_prefix `prefix` (a unique one per call is fine). */
  make(prefix: string): SnapshotTarget;
  /** Expected URL shape for an object. */
  urlPattern: RegExp;
}

export function targetConformance(label: string, subject: () => ConformanceSubject): void {
  describe(`snapshot target conformance: ${label}`, () => {
    let n = 0;
    const fresh = (suffix = '') => subject().make(`conf-${Date.now()}-${n++}/${suffix}`);

    it('round-trips bytes, lists name and size, and deletes', async () => {
      const t = fresh();
      const body = randomBytes(100_000);
      await t.put('vault-snapshot-1000.snap', () => Readable.from([body]), body.length, live);
      await t.cleanup(); // a temporary object's delete may still be running in the background
      expect(await t.list()).toEqual([{ name: 'vault-snapshot-1000.snap', size: body.length }]);
      expect((await readAll(await t.get('vault-snapshot-1000.snap'))).equals(body)).toBe(true);
      expect(t.url('vault-snapshot-1000.snap')).toMatch(subject().urlPattern);
      await t.delete('vault-snapshot-1000.snap');
      expect(await t.list()).toEqual([]);
      await t.delete('vault-snapshot-1000.snap'); // missing: not an error
      await t.close();
    });

    it('streams a large archive (multi-block / resumable path) intact', async () => {
      const t = fresh();
      const body = randomBytes(9 * 1024 * 1024 + 123);
      const chunks: Buffer[] = [];
      for (let i = 0; i < body.length; i += 64 * 1024) chunks.push(body.subarray(i, i + 64 * 1024));
      await t.put('vault-snapshot-2000.snap', () => Readable.from(chunks), body.length, live);
      const back = await readAll(await t.get('vault-snapshot-2000.snap'));
      expect(back.length).toBe(body.length);
      expect(back.equals(body)).toBe(true);
      await t.close();
    });

    it('leaves nothing under the final name when the source fails mid-write', async () => {
      const t = fresh();
      await expect(t.put('vault-snapshot-3000.snap', () => failingSource(randomBytes(300_000)), 600_000, live)).rejects.toThrow();
      const names = (await t.list()).map((o) => o.name);
      expect(names).not.toContain('vault-snapshot-3000.snap');
      expect(names.filter((x) => /^vault-snapshot-\d+\.snap$/.test(x))).toEqual([]);
      await t.cleanup();
      expect(await t.list()).toEqual([]);
      await t.close();
    });

    it('stops and leaves nothing under the final name when the signal aborts mid-write', async () => {
      const t = fresh();
      const abort = new AbortController();
      // Sends one chunk, then stalls (never ends) until the abort destroys it.
      const stalled = new Readable({ read() {} });
      stalled.push(randomBytes(300_000));
      stalled.once('data', () => setImmediate(() => abort.abort(new Error('attempt deadline passed'))));
      await expect(t.put('vault-snapshot-4000.snap', () => stalled, 600_000, abort.signal)).rejects.toThrow();
      expect((await t.list()).map((o) => o.name).filter((x) => /^vault-snapshot-\d+\.snap$/.test(x))).toEqual([]);
      await t.cleanup();
      await t.close();
    });

    it('keeps the name invisible while the upload is still streaming, then publishes it whole', async () => {
      const prefix = `conf-${Date.now()}-${n++}/`;
      const t = subject().make(prefix);
      const observer = subject().make(prefix);
      // More than one S3 part / Azure block and a GCS resumable session: the store has received
      // data (and could show it) long before the source ends.
      const size = 12 * 1024 * 1024;
      const body = randomBytes(size);
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      const source = Readable.from(
        (async function* () {
          for (let i = 0; i < size - 1024; i += 256 * 1024) yield body.subarray(i, Math.min(i + 256 * 1024, size - 1024));
          await released;
          yield body.subarray(size - 1024);
        })(),
      );
      const put = t.put('vault-snapshot-5000.snap', () => source, size, live);
      try {
        await new Promise((r) => setTimeout(r, 1500));
        expect((await observer.list()).map((o) => o.name)).not.toContain('vault-snapshot-5000.snap');
      } finally {
        release();
        await put;
      }
      await t.cleanup();
      expect(await observer.list()).toEqual([{ name: 'vault-snapshot-5000.snap', size }]);
      expect((await readAll(await observer.get('vault-snapshot-5000.snap'))).equals(body)).toBe(true);
      for (const x of [t, observer]) await x.close();
    });

    it('lists only direct children of its prefix, with or without the trailing slash', async () => {
      const stamp = `scope-${Date.now()}-${n++}`;
      const top = subject().make(`${stamp}/`);
      const deeper = subject().make(`${stamp}/sub/`);
      const sibling = subject().make(`${stamp}-other/`);
      await top.put('a-1.snap', () => Readable.from([Buffer.from('top')]), 3, live);
      await deeper.put('a-2.snap', () => Readable.from([Buffer.from('deep')]), 4, live);
      await sibling.put('a-3.snap', () => Readable.from([Buffer.from('sib')]), 3, live);
      expect((await top.list()).map((o) => o.name)).toEqual(['a-1.snap']);
      expect((await deeper.list()).map((o) => o.name)).toEqual(['a-2.snap']);
      for (const t of [top, deeper, sibling]) await t.close();
    });
  });
}
