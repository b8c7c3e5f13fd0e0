#!/usr/bin/env node
// The `keyward` command: runs the compiled CLI when built, else the TypeScript sources through tsx
// (so a checkout works without a build step).
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const built = path.join(__dirname, '..', 'dist', 'src', 'cli', 'main.js');
if (fs.existsSync(built)) {
  require(built).main(process.argv);
} else {
  require('tsx/cjs');
  require(path.join(__dirname, '..', 'src', 'cli', 'main.ts')).main(process.argv);
}
