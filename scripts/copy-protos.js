// Build step: the provider loads its protocol from beside its compiled modules (package.json
// "files" ships dist/ only), so copy the .proto files from src/terraform/plugin into
// dist/src/terraform/plugin and compile them to protos.json, which the provider loads at start
// without parsing .proto text (see src/terraform/plugin/protos.ts).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const from = path.join(__dirname, '..', 'src', 'terraform', 'plugin');
const to = path.join(__dirname, '..', 'dist', 'src', 'terraform', 'plugin');
fs.mkdirSync(to, { recursive: true });
for (const name of fs.readdirSync(from)) {
  if (name.endsWith('.proto')) fs.copyFileSync(path.join(from, name), path.join(to, name));
}
// The compiled protos module parses the copies (its protoPath is dist's directory).
const { parseProtos, PROTOS_JSON } = require(path.join(to, 'protos.js'));
fs.writeFileSync(path.join(to, PROTOS_JSON), JSON.stringify(parseProtos().toJSON()));
