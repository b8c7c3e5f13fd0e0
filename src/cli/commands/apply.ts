// `keyward apply`: plan, show the plan, ask for approval (or --auto-approve) and apply; or apply a
// saved plan (--plan FILE, refused when the live state or the record moved since), then verify.
// Its flags are the command table's (../command-table.ts); this file is the behaviour only.

import type { Command } from 'commander';
import { registerCommand } from '../command-table';
import type { ApplyFlags } from '../options';

export function registerApply(program: Command): void {
  registerCommand(program, 'apply', async (flags: ApplyFlags) => {
    const { runApply } = require('./apply-run') as typeof import('./apply-run');
    const { ApplyError } = require('../../reconcile/apply') as typeof import('../../reconcile/apply');
    try {
      process.exitCode = await runApply(flags);
    } catch (e) {
      if (e instanceof ApplyError) {
        process.stderr.write(`Error: ${e.message}\n`);
        process.exitCode = 1;
        return;
      }
      throw e;
    }
  });
}
