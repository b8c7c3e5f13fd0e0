#!/usr/bin/env node
// The keyward Terraform provider (plugin protocol 6). Terraform starts it; run by hand it only says
// so. In a source checkout it runs the TypeScript sources through tsx; an installed package (which
// ships only bin/ and dist/) runs the compiled output.
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const source = path.join(__dirname, '..', 'src', 'terraform', 'plugin', 'main.ts');
if (fs.existsSync(source)) {
  require('tsx/cjs');
  require(source).main();
} else {
  require(path.join(__dirname, '..', 'dist', 'src', 'terraform', 'plugin', 'main.js')).main();
}
