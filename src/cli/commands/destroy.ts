// `keyward destroy`: delete everything the stack manages (its manifest's objects and those in the
// last-applied record), after approval; objects never managed are left alone.

import type { Command } from 'commander';
import { addApproveOption, addConnectionOptions, addSourceOptions, type DestroyFlags } from '../options';

export function registerDestroy(program: Command): void {
  const c = program.command('destroy').description('Delete every object the stack manages from the server');
  addSourceOptions(c);
  addConnectionOptions(c);
  addApproveOption(c);
  c.action(async (flags: DestroyFlags) => {
    const { runDestroy } = require('./destroy-run') as typeof import('./destroy-run');
    process.exitCode = await runDestroy(flags);
  });
}
