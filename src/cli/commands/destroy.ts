// `keyward destroy`: delete everything the stack manages (its manifest's objects and those in the
// last-applied record); objects never managed are left alone.

import type { Command } from 'commander';
import { desiredFromManifest, type DesiredState } from '../../reconcile/desired';
import { recordedFrom, type LastApplied } from '../../reconcile/record';
import { loadSource, type SourceOptions } from '../../reconcile/source';
import { planAndApply } from './apply';
import { addConnectionOptions, addSourceOptions, type ConnectionFlags } from './plan';

type DestroyFlags = SourceOptions & ConnectionFlags;

export async function runDestroy(flags: DestroyFlags): Promise<number> {
  const src = loadSource(flags);
  const declared = desiredFromManifest(src.manifest, process.env, { lenientSecrets: true });
  const record: LastApplied = { version: 1, objects: { ...src.record.objects } };
  for (const o of declared.objects.values()) if (!record.objects[o.id]) record.objects[o.id] = recordedFrom(o);
  const nothing: DesiredState = { objects: new Map(), exclusiveRoleMounts: new Set(), exclusiveSnapshotConfigs: false, fingerprintSalt: declared.fingerprintSalt };
  return planAndApply(flags, src.manifest.server, nothing, record, src.recordPath);
}

export function registerDestroy(program: Command): void {
  const c = program.command('destroy').description('Delete every object the stack manages from the server');
  addSourceOptions(c);
  addConnectionOptions(c);
  c.action(async (flags: DestroyFlags) => {
    process.exitCode = await runDestroy(flags);
  });
}
