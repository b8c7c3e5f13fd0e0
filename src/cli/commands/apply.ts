// `keyward apply`: plan, show the plan, ask for approval (or --auto-approve) and apply; or apply a
// saved plan (--plan FILE, refused when the live state or the record moved since), then verify.

import type { Command } from 'commander';
import { addResendOption, addApproveOption, addConnectionOptions, addSourceOptions, type ApplyFlags } from '../options';

export function registerApply(program: Command): void {
  const c = program.command('apply').description('Apply the desired state to the server, then verify it converged');
  addSourceOptions(c);
  addConnectionOptions(c);
  addApproveOption(c);
  addResendOption(c);
  c.option('--plan <file>', 'apply a plan saved by `keyward plan --out FILE` without asking (refused if the server changed since)').action(async (flags: ApplyFlags) => {
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
