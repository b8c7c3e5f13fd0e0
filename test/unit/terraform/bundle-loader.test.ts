// The provider's bundle runs with the code cache the build made from it, and never with a cache made
// from another bundle: V8 accepts cached code for any source of the same length and would run the
// old code, so the cache file names the bundle (size and mtime) it was made from.
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vm from 'node:vm';
import { cachePath, loadBundle, writeCodeCache } from '../../../src/terraform/plugin/bundle-loader';

describe('bundle-loader', () => {
  let dir: string;
  let bundle: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'keyward-bundle-loader-'));
    bundle = join(dir, 'provider.bundle.js');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (value: string, mtime: number) => {
    writeFileSync(bundle, `exports.value = '${value}'; exports.dir = __dirname; exports.builtin = typeof require('node:path').join;\n`);
    utimesSync(bundle, mtime, mtime);
  };

  it('runs the bundle as a CommonJS module, with and without its cache', async () => {
    write('one', 1_000);
    const plain = loadBundle(bundle) as { value: string; dir: string; builtin: string };
    expect([plain.value, plain.dir, plain.builtin]).toEqual(['one', dir, 'function']);
    expect(await writeCodeCache(bundle)).toBeGreaterThan(0);
    const cached = loadBundle(bundle) as { value: string };
    expect(cached.value).toBe('one');
  });

  it('compiles afresh a bundle rebuilt after its cache, even of the same length', async () => {
    write('one', 1_000);
    await writeCodeCache(bundle);
    write('two', 2_000); // same length, new content, the old cache left behind
    // What the stamp guards against: V8 itself takes the old cache for the new source, and runs the old code.
    const stale = new vm.Script(`'one'`, { filename: 'a.js' }).createCachedData();
    const reused = new vm.Script(`'two'`, { filename: 'a.js', cachedData: stale });
    expect([reused.cachedDataRejected, reused.runInThisContext()]).toEqual([false, 'one']);
    expect((loadBundle(bundle) as { value: string }).value).toBe('two');
  });

  it('ignores a cache file that is not one', () => {
    write('one', 1_000);
    writeFileSync(cachePath(bundle), 'not a cache');
    expect((loadBundle(bundle) as { value: string }).value).toBe('one');
  });
});
