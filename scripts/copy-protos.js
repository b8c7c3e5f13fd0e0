// Build step: the provider loads its .proto files from beside its compiled modules, so copy them
// from src/terraform/plugin into dist/src/terraform/plugin (package.json "files" ships dist/ only).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const from = path.join(__dirname, '..', 'src', 'terraform', 'plugin');
const to = path.join(__dirname, '..', 'dist', 'src', 'terraform', 'plugin');
fs.mkdirSync(to, { recursive: true });
for (const name of fs.readdirSync(from)) {
  if (name.endsWith('.proto')) fs.copyFileSync(path.join(from, name), path.join(to, name));
}
