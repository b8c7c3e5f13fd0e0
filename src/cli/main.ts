// The `keyward` command: one subcommand per file under ./commands, registered here. Registration
// loads commander only; each command imports its engine, client or SDK parts when it runs.

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
import { registerTerraformInstall } from './commands/terraform-install';
import { registerSnapshotAgent } from './commands/snapshot-agent';
import { registerSnapshot } from './commands/snapshot';

export function buildProgram(): Command {
  const program = new Command('keyward')
    .description('Declarative management of a Vault-compatible server: cloud auth and automated snapshots')
    .version(packageVersion(), '-v, --version', 'print the keyward version')
    .showHelpAfterError();
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
