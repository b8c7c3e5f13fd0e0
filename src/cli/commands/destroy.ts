// `keyward destroy`: delete everything the stack manages (its manifest's objects and those in the
// last-applied record), after approval; objects never managed are left alone.
// Its flags are the command table's (../command-table.ts); this file is the behaviour only.

import type { Command } from 'commander';
import { registerCommand } from '../command-table';
import type { DestroyFlags } from '../options';

export function registerDestroy(program: Command): void {
  registerCommand(program, 'destroy', async (flags: DestroyFlags) => {
    const { runDestroy } = require('./destroy-run') as typeof import('./destroy-run');
    process.exitCode = await runDestroy(flags);
  });
}
