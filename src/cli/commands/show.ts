// `keyward show FILE`: renders Terraform's own plan (`terraform show -json tfplan`, or `-` for stdin)
// in keyward's formats, so a pull-request comment shows what applying that saved plan will do.
// Its argument and flags are the command table's (../command-table.ts); this file is the behaviour only.

import type { Command } from 'commander';
import { registerCommand, type CommandFlags } from '../command-table';

export function registerShow(program: Command): void {
  registerCommand(program, 'show', async (file: string, flags: CommandFlags<'show'>) => {
    const { runShow } = require('./show-run') as typeof import('./show-run');
    process.exitCode = runShow(file, flags);
  });
}
