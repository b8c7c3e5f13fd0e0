// `keyward import --mount <path>` / `keyward import --snapshots`: print TypeScript construct code
// for what exists on the server, to adopt an existing setup.

import type { Command } from 'commander';
import { addConnectionOptions } from '../options';
import type { ImportFlags } from './import-run';

export function registerImport(program: Command): void {
  const c = program.command('import').description('Print construct code (TypeScript) for an existing auth mount or the snapshot configs');
  addConnectionOptions(c);
  c.option('--mount <path>', 'the cloud auth mount to import (its config and every role)')
    .option('--snapshots', 'import every automated snapshot configuration')
    .option('--module <specifier>', 'module the constructs are imported from', 'keyward/constructs')
    .option('--stack <name>', 'stack name in the generated app', 'imported')
    .option('--out <file>', 'write the code to a file instead of stdout')
    .action(async (flags: ImportFlags) => {
      const { runImport } = require('./import-run') as typeof import('./import-run');
      await runImport(flags);
    });
}
