#!/usr/bin/env node
// The keyward Terraform provider (plugin protocol 6). Terraform starts it; run by hand it only says
// so. An installed package (bin/ and dist/ only) runs the compiled output. Terraform starts the
// provider several times per command, so a source checkout also runs dist/ when `npm run build`
// is newer than every source file (loading through tsx costs seconds per start); otherwise it runs
// the TypeScript sources through tsx, so the provider always matches the code.
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const root = path.join(__dirname, '..');
const source = path.join(root, 'src', 'terraform', 'main.ts');
const compiled = path.join(root, 'dist', 'src', 'terraform', 'main.js');
// The plugin host's compiled folder: its proto files, its bundle loader, and the build's bundle.
const plugin = path.join(root, 'dist', 'src', 'terraform', 'plugin');
// The build's one-file bundle of the compiled entry, run with its code cache (a start's CPU is mostly
// loading modules); used only when no later `tsc` rewrote the compiled entry after it was made.
const bundle = path.join(plugin, 'provider.bundle.js');

/** True when some file under dir changed after `since` (ms). */
function changedSince(dir, since) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory() ? changedSince(p, since) : fs.statSync(p).mtimeMs > since) return true;
  }
  return false;
}

function useCompiled() {
  if (!fs.existsSync(source)) return true;
  try {
    return !changedSince(path.join(root, 'src'), fs.statSync(compiled).mtimeMs);
  } catch {
    return false; // no build
  }
}

function bundleCurrent() {
  try {
    return fs.statSync(bundle).mtimeMs >= fs.statSync(compiled).mtimeMs;
  } catch {
    return false; // built without the bundle step
  }
}

if (useCompiled()) {
  if (bundleCurrent()) {
    // The bundle's digest names the build: roles it found valid are kept per build (role-validity-file.ts).
    const loaded = require(path.join(plugin, 'bundle-loader.js')).loadBundle(bundle);
    loaded.exports.main({ stamp: loaded.stamp });
  } else require(compiled).main();
} else {
  require('tsx/cjs');
  require(source).main();
}
