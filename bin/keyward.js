#!/usr/bin/env node
// The `keyward` command. In a source checkout it runs the TypeScript sources through tsx, so the
// command always matches the code; an installed package (which ships only bin/ and dist/) runs the
// compiled output.
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const source = path.join(__dirname, '..', 'src', 'cli', 'main.ts');
if (fs.existsSync(source)) {
  require('tsx/cjs');
  require(source).main(process.argv);
} else {
  require(path.join(__dirname, '..', 'dist', 'src', 'cli', 'main.js')).main(process.argv);
}
