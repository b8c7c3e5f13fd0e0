// `keyward import --mount <path>` / `keyward import --snapshots`: print TypeScript construct code
// for what exists on the server, to adopt an existing setup.
// Its flags are the command table's (../command-table.ts); this file is the behaviour only.

import type { Command } from 'commander';
import { registerCommand } from '../command-table';
import type { ImportFlags } from './import-run';

export function registerImport(program: Command): void {
  registerCommand(program, 'import', async (flags: ImportFlags) => {
    const { runImport } = require('./import-run') as typeof import('./import-run');
    await runImport(flags);
  });
}
