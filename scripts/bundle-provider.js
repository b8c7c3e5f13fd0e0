// Build step (after tsc and copy-protos): bundles the compiled provider entry and everything it loads
// into one file beside it, and writes V8's code cache of that file (see
// src/terraform/plugin/bundle-loader.ts). bin/terraform-provider-keyward.js runs the bundle when it is
// at least as new as the compiled entry, so a plain `tsc` after a build falls back to dist/'s modules.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');
// The bundle sits in the plugin host's folder, beside the proto files it reads from its own directory
// (src/terraform/plugin/protos.ts); its entry is the provider's (src/terraform/main.ts).
const dir = path.join(__dirname, '..', 'dist', 'src', 'terraform', 'plugin');
const entry = path.join(__dirname, '..', 'dist', 'src', 'terraform', 'main.js');
const bundle = path.join(dir, 'provider.bundle.js');
const { cachePath, writeCodeCache } = require(path.join(dir, 'bundle-loader.js'));
fs.rmSync(cachePath(bundle), { force: true });
esbuild.buildSync({
  entryPoints: [entry],
  outfile: bundle,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  logLevel: 'warning',
  // Smaller to read and compile at every start. Names are kept (no identifier minifying), so stack
  // traces still name their functions; the bundled packages' license comments go to a file beside it.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'external',
});
// An ASCII file becomes a one-byte string, which Node reads and V8 scans at a fraction of a two-byte
// one's cost (a single non-ASCII character in a regex literal or comment makes the whole file two-byte).
const text = fs.readFileSync(bundle, 'latin1');
const wide = text.search(/[\u0080-\uffff]/);
if (wide >= 0) process.stderr.write(`bundle-provider: ${bundle} is not ASCII at ${wide} (${JSON.stringify(text.slice(wide - 40, wide + 10))}): starts will be slower\n`);
// The bundle must need nothing outside itself but Node's built-ins (the loader serves only those).
const external = [...text.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]).filter((name) => !name.startsWith('node:') && !require('node:module').isBuiltin(name));
if (external.length) throw new Error(`provider bundle requires non-built-in modules: ${[...new Set(external)].join(', ')}`);
// The cache holds what the build's warm-up compiled: a walk's validators, configure and client too.
writeCodeCache(bundle, (exports) => exports.warmUp()).catch((err) => {
  fs.rmSync(cachePath(bundle), { force: true });
  process.stderr.write(`bundle-provider: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
