// The provider's bundle runs with the code cache the build made from it, also after npm install
// (which sets every file's mtime to one fixed date), and never with a cache made from another
// bundle: V8 accepts cached code for any source of the same length and would run the old code, so
// the cache file starts with the SHA-256 of the bundle it was made from.
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

  const write = (value: string) => writeFileSync(bundle, `exports.value = '${value}'; exports.dir = __dirname; exports.builtin = typeof require('node:path').join;\n`);
  const value = () => {
    const r = loadBundle(bundle);
    return { value: (r.exports as { value: string }).value, cacheUsed: r.cacheUsed };
  };

  it('runs the bundle as a CommonJS module, with and without its cache', async () => {
    write('one');
    const plain = loadBundle(bundle);
    expect(plain.cacheUsed).toBe(false);
    const e = plain.exports as { value: string; dir: string; builtin: string };
    expect([e.value, e.dir, e.builtin]).toEqual(['one', dir, 'function']);
    expect(await writeCodeCache(bundle)).toBeGreaterThan(0);
    expect(value()).toEqual({ value: 'one', cacheUsed: true });
  });

  it("uses the cache after npm install set the files' mtimes", async () => {
    write('one');
    await writeCodeCache(bundle);
    const packed = new Date('1985-10-26T08:15:00Z');
    utimesSync(bundle, packed, packed);
    utimesSync(cachePath(bundle), packed, packed);
    expect(value()).toEqual({ value: 'one', cacheUsed: true });
  });

  it('compiles afresh a bundle rebuilt after its cache, even of the same length', async () => {
    write('one');
    await writeCodeCache(bundle);
    write('two'); // same length, new content, the old cache left behind
    // What the stamp guards against: V8 itself takes the old cache for the new source, and runs the old code.
    const stale = new vm.Script(`'one'`, { filename: 'a.js' }).createCachedData();
    const reused = new vm.Script(`'two'`, { filename: 'a.js', cachedData: stale });
    expect([reused.cachedDataRejected, reused.runInThisContext()]).toEqual([false, 'one']);
    expect(value()).toEqual({ value: 'two', cacheUsed: false });
  });

  it('ignores a cache file that is not one', () => {
    write('one');
    writeFileSync(cachePath(bundle), 'not a cache');
    expect(value()).toEqual({ value: 'one', cacheUsed: false });
  });

  it("runs the build's warm-up before writing the cache", async () => {
    writeFileSync(bundle, `let warmed = false; exports.warmUp = async () => { warmed = true; }; exports.warmed = () => warmed;\n`);
    let seen: unknown;
    await writeCodeCache(bundle, async (e) => {
      await (e as { warmUp: () => Promise<void> }).warmUp();
      seen = (e as { warmed: () => boolean }).warmed();
    });
    expect(seen).toBe(true);
    expect(loadBundle(bundle).cacheUsed).toBe(true);
  });
});
