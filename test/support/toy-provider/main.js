#!/usr/bin/env node
// Entry of the toy provider process (tests only): the plugin layer's `serve` with toyProvider().
'use strict';
require('tsx/cjs');
const { serve } = require('../../../src/terraform/plugin/serve.ts');
const { toyProvider } = require('./toy-provider.ts');
serve(toyProvider()).catch((err) => {
  process.stderr.write(`toy provider: ${err && err.stack ? err.stack : String(err)}\n`);
  process.exit(1);
});
