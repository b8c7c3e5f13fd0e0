// `keyward plan`: compare the desired state with the live server and print the plan (text,
// Markdown or JSON); --out saves it for `apply --plan`; --detailed-exitcode gives 0/2/1.

import type { Command } from 'commander';
import { addResendOption, addConnectionOptions, addPlanOutputOptions, addShowServerNamesOption, addSourceOptions, type PlanFlags } from '../options';

export function registerPlan(program: Command): void {
  const c = program.command('plan').description('Show what apply would change on the server (no writes)');
  addSourceOptions(c);
  addConnectionOptions(c);
  addShowServerNamesOption(c);
  addResendOption(c);
  addPlanOutputOptions(c);
  c.action(async (flags: PlanFlags) => {
    const { runPlan } = require('./plan-run') as typeof import('./plan-run');
    process.exitCode = await runPlan(flags);
  });
}
