// `keyward import --mount <path>` / `keyward import --snapshots`: print TypeScript construct code
// for what exists on the server, to adopt an existing setup.

import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { mountCode, readMountForImport, readSnapshotsForImport, snapshotsCode } from '../../reconcile/import-code';
import { addConnectionOptions, openClient, parallelismOf, type ConnectionFlags } from './plan';

type ImportFlags = ConnectionFlags & { mount?: string; snapshots?: boolean; module: string; stack: string; out?: string };

export async function runImport(flags: ImportFlags): Promise<string> {
  if (!flags.mount === !flags.snapshots) throw new Error('give exactly one of --mount <path> or --snapshots');
  const client = openClient(flags);
  try {
    const o = { module: flags.module, stackName: flags.stack, source: client.address };
    const code = flags.mount
      ? mountCode(await readMountForImport(client, flags.mount.replace(/^\/+|\/+$/g, ''), parallelismOf(flags)), o)
      : snapshotsCode(await readSnapshotsForImport(client, parallelismOf(flags)), o);
    if (flags.out) writeFileSync(flags.out, code);
    else process.stdout.write(code);
    return code;
  } finally {
    await client.close();
  }
}

export function registerImport(program: Command): void {
  const c = program.command('import').description('Print construct code (TypeScript) for an existing auth mount or the snapshot configs');
  addConnectionOptions(c);
  c.option('--mount <path>', 'the cloud auth mount to import (its config and every role)')
    .option('--snapshots', 'import every automated snapshot configuration')
    .option('--module <specifier>', 'module the constructs are imported from', 'keyward/constructs')
    .option('--stack <name>', 'stack name in the generated app', 'imported')
    .option('--out <file>', 'write the code to a file instead of stdout')
    .action(async (flags: ImportFlags) => {
      await runImport(flags);
    });
}
