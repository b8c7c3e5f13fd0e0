// The `keyward` command. The reconciling commands (plan, show, apply, destroy, import) and their
// flags are declared in ./command-table.ts; each file under ./commands registers one subcommand
// (from the table, or with its own flags for the servers and tools) and loads its work (./commands/
// *-run.ts, the engine, the client, an SDK) only when it runs, so --help loads commander alone.

import { Command } from 'commander';
import { registerServer } from './commands/server';
import { registerPlan } from './commands/plan';
import { registerApply } from './commands/apply';
import { registerDestroy } from './commands/destroy';
import { registerImport } from './commands/import';
import { registerCloudEmulator } from './commands/cloud-emulator';
import { registerStatus } from './commands/status';
import { registerShow } from './commands/show';
import { packageVersion } from './version';
import { usageHint } from './command-table';
import { registerTerraformInstall } from './commands/terraform-install';
import { registerSnapshotAgent } from './commands/snapshot-agent';
import { registerSnapshot } from './commands/snapshot';

export function buildProgram(): Command {
  const program = new Command('keyward')
    .description('Declarative management of a Vault-compatible server: cloud auth and automated snapshots')
    .version(packageVersion(), '-v, --version', 'print the keyward version')
    .showHelpAfterError(usageHint());
  registerServer(program);
  registerPlan(program);
  registerShow(program);
  registerApply(program);
  registerDestroy(program);
  registerImport(program);
  registerCloudEmulator(program);
  registerStatus(program);
  registerTerraformInstall(program);
  registerSnapshotAgent(program);
  registerSnapshot(program);
  // A usage error prints the error and one line naming the command's --help, not the whole help.
  for (const c of program.commands) c.showHelpAfterError(usageHint(c.name()));
  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (e) {
    process.stderr.write(`Error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  }
}
