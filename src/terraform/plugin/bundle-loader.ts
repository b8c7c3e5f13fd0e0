// Runs the provider's single-file bundle (scripts/bundle-provider.js) with V8's code cache.
// Terraform starts the provider three or four times per command, and most of a start's CPU went to
// resolving, reading and compiling ~170 modules. One file and a code cache made at build time cut that
// compile; Node 20 has no module.enableCompileCache (22.1+), so vm.Script's cachedData does it here.
//
// V8 accepts a cache for any source of the same length, so the cache file starts with the SHA-256 of the
// bundle it was made from: a bundle rebuilt without its cache (or edited by hand) is compiled afresh.
// A digest, not the file's mtime: npm sets every packed file's mtime to one fixed date on install.
// Hashing the 2.4 MB bundle costs about 1.5 ms of a start.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vm from 'node:vm';
import Module from 'node:module';

const HEADER_BYTES = 64;

export const cachePath = (bundle: string): string => `${bundle}.cache`;

/** The bundle's bytes and their SHA-256 (hex: HEADER_BYTES characters). */
function read(bundle: string): { source: string; stamp: string } {
  const bytes = fs.readFileSync(bundle);
  return { source: bytes.toString('utf8'), stamp: createHash('sha256').update(bytes).digest('hex') };
}

function readCache(stamp: string, bundle: string): Buffer | undefined {
  let data: Buffer;
  try {
    data = fs.readFileSync(cachePath(bundle));
  } catch {
    return undefined; // no cache: compile
  }
  if (data.subarray(0, HEADER_BYTES).toString('latin1') !== stamp) return undefined;
  return data.subarray(HEADER_BYTES);
}

function compile(bundle: string, source: string, cachedData: Buffer | undefined): vm.Script {
  return new vm.Script(Module.wrap(source), { filename: bundle, cachedData });
}

/** Evaluates a CommonJS bundle as require would, and returns its exports. */
function evaluate(script: vm.Script, bundle: string): unknown {
  const wrapper = script.runInThisContext() as (exports: object, req: NodeRequire, mod: object, filename: string, dirname: string) => void;
  const mod = { exports: {} as unknown };
  // The bundle's own requires are Node built-ins only, so this module's require serves them.
  wrapper.call(mod.exports, mod.exports as object, require, mod, bundle, path.dirname(bundle));
  return mod.exports;
}

/** The bundle's exports, compiled with its code cache when the cache was made from this bundle, and the bundle's SHA-256. */
export function loadBundle(bundle: string): { exports: unknown; cacheUsed: boolean; stamp: string } {
  const { source, stamp } = read(bundle);
  const cachedData = readCache(stamp, bundle);
  const script = compile(bundle, source, cachedData);
  return { exports: evaluate(script, bundle), cacheUsed: cachedData !== undefined && !script.cachedDataRejected, stamp };
}

/**
 * Build step: evaluates the bundle, runs `warm` on its exports, and writes the code cache of all that
 * compiled (V8 keeps the functions compiled so far, so warm decides what a start finds compiled).
 */
export async function writeCodeCache(bundle: string, warm?: (exports: unknown) => Promise<void> | void): Promise<number> {
  const { source, stamp } = read(bundle);
  const script = compile(bundle, source, undefined);
  const loaded = evaluate(script, bundle);
  await warm?.(loaded);
  const data = script.createCachedData();
  fs.writeFileSync(cachePath(bundle), Buffer.concat([Buffer.from(stamp, 'latin1'), data]));
  return data.length;
}
