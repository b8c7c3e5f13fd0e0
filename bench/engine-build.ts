// The engine as shipped, for benches that report its throughput: compiled by tsc with
// tsconfig.build.json (what `npm run build` puts in dist/), not run through tsx. tsx's transform
// (esbuild with keepNames) wraps every closure the code creates in a defineProperty call for its
// name, which costs a measurable share of each request's CPU that the installed package never pays.

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Compiles a checkout's sources into <checkout>/bench/tmp/engine-build (incremental, so a second
 * run only recompiles what changed; inside the checkout so its node_modules resolve) and returns
 * the path of a script that starts the `keyward` command from there.
 */
export function buildEngine(checkout: string): string {
  const out = join(checkout, 'bench', 'tmp', 'engine-build');
  const tsc = join(checkout, 'node_modules', 'typescript', 'bin', 'tsc');
  const args = ['-p', join(checkout, 'tsconfig.build.json'), '--outDir', out, '--declaration', 'false', '--sourceMap', 'false'];
  execFileSync(process.execPath, [tsc, ...args, '--incremental', '--tsBuildInfoFile', join(out, 'build.tsbuildinfo')], { stdio: 'inherit' });
  const entry = join(out, 'keyward.js');
  writeFileSync(entry, "'use strict';\nrequire('./src/cli/main.js').main(process.argv);\n");
  return entry;
}

/**
 * The provider emulator for a bench: from the compiled build when there is one, since it shares the
 * machine's two cores with the engine it serves and tsx's transform would inflate its CPU too.
 */
export function emulatorModule(entry: string | undefined): typeof import('../src/cloud-emulator') {
  return require(entry ? join(dirname(entry), 'src', 'cloud-emulator') : '../src/cloud-emulator') as typeof import('../src/cloud-emulator');
}
