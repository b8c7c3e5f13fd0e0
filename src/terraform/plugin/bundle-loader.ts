// Runs the provider's single-file bundle (scripts/bundle-provider.js) with V8's code cache.
// Terraform starts the provider three or four times per command, and most of a start's CPU went to
// resolving, reading and compiling ~170 modules. One file and a code cache made at build time cut that
// compile; Node 20 has no module.enableCompileCache (22.1+), so vm.Script's cachedData does it here.
//
// V8 accepts a cache for any source of the same length, so the cache file starts with the bundle's size
// and mtime it was made from: a bundle rebuilt without its cache (or edited by hand) is compiled afresh.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vm from 'node:vm';
import Module from 'node:module';

const HEADER_BYTES = 64;

export const cachePath = (bundle: string): string => `${bundle}.cache`;

function stamp(bundle: string): string {
  const s = fs.statSync(bundle);
  return `${s.size}:${s.mtimeMs}`.padEnd(HEADER_BYTES, ' ');
}

function readCache(bundle: string): Buffer | undefined {
  let data: Buffer;
  try {
    data = fs.readFileSync(cachePath(bundle));
  } catch {
    return undefined; // no cache: compile
  }
  if (data.subarray(0, HEADER_BYTES).toString('latin1') !== stamp(bundle)) return undefined;
  return data.subarray(HEADER_BYTES);
}

function compile(bundle: string, cachedData: Buffer | undefined): vm.Script {
  const source = fs.readFileSync(bundle, 'utf8');
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

/** The bundle's exports, compiled with its code cache when the cache matches the bundle. */
export function loadBundle(bundle: string): unknown {
  return evaluate(compile(bundle, readCache(bundle)), bundle);
}

/**
 * Build step: evaluates the bundle, runs `warm` on its exports, and writes the code cache of all that
 * compiled (V8 keeps the functions compiled so far, so warm decides what a start finds compiled).
 */
export async function writeCodeCache(bundle: string, warm?: (exports: unknown) => Promise<void> | void): Promise<number> {
  const script = compile(bundle, undefined);
  const loaded = evaluate(script, bundle);
  await warm?.(loaded);
  const data = script.createCachedData();
  fs.writeFileSync(cachePath(bundle), Buffer.concat([Buffer.from(stamp(bundle), 'latin1'), data]));
  return data.length;
}
