// The work of `keyward import`, loaded only when it runs.

import { writeFileSync } from 'node:fs';
import { importCode, readMountForImport, readSnapshotsForImport } from '../../reconcile/import-code';
import type { ConnectionFlags } from '../options';
import { openClient, parallelismOf } from '../server-client';
import { preferredLibrary } from '../../../constructs/cdk-library';

function canResolve(lib: string): boolean {
  try {
    require.resolve(lib, { paths: [process.cwd(), __dirname] });
    return true;
  } catch {
    return false;
  }
}

export type ImportFlags = ConnectionFlags & { mount?: string; snapshots?: boolean; module: string; stack: string; out?: string };

export async function runImport(flags: ImportFlags): Promise<string> {
  if (!flags.mount && !flags.snapshots) throw new Error('give --mount <path>, --snapshots, or both (one app)');
  const client = openClient(flags);
  try {
    // The generated app imports App and TerraformStack from the library this app uses (cdktn or cdktf).
    const cdkLibrary = preferredLibrary(process.cwd(), (lib) => canResolve(lib));
    // Every server setting the import was given goes into the app, so its plan reaches what was read.
    const server = {
      namespace: client.namespace,
      snapshotAddress: client.snapshotAddress === client.address ? undefined : client.snapshotAddress,
      cloudPlugin: flags.cloudPlugin ?? (process.env.KEYWARD_CLOUD_PLUGIN || undefined),
    };
    const o = { module: flags.module, stackName: flags.stack, source: client.address, dialect: await client.dialect(), cdkLibrary, server };
    const mounts = flags.mount ? [await readMountForImport(client, flags.mount.replace(/^\/+|\/+$/g, ''), parallelismOf(flags))] : [];
    const code = importCode(mounts, flags.snapshots ? await readSnapshotsForImport(client, parallelismOf(flags)) : undefined, o);
    if (flags.out) writeFileSync(flags.out, code);
    else process.stdout.write(code);
    return code;
  } finally {
    await client.close();
  }
}
