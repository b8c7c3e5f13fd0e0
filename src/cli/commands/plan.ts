// `keyward plan`: compare the desired state with the live server and print the plan (text,
// Markdown or JSON); --out saves it for `apply --plan`; --detailed-exitcode gives 0/2/1.
// Its flags are the command table's (../command-table.ts); this file is the behaviour only.

import type { Command } from 'commander';
import { registerCommand } from '../command-table';
import type { PlanFlags } from '../options';

export function registerPlan(program: Command): void {
  registerCommand(program, 'plan', async (flags: PlanFlags) => {
    const { runPlan } = require('./plan-run') as typeof import('./plan-run');
    process.exitCode = await runPlan(flags);
  });
}
