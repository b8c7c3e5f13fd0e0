// The work of `keyward destroy`, loaded only when it runs.

import { desiredFromManifest, type DesiredState } from '../../reconcile/desired';
import { recordedFrom, type LastApplied } from '../../reconcile/record';
import { requireApprovalPossible } from '../approve';
import type { DestroyFlags } from '../options';
import { resolveSource, terraformManaged } from '../cdktf-project';
import { isPlanOnly, PLAN_ONLY_APPLY_REFUSED } from '../../schema/plan-only';
import { planAndApply } from './apply-run';

export async function runDestroy(flags: DestroyFlags): Promise<number> {
  if (isPlanOnly(process.env)) throw new Error(PLAN_ONLY_APPLY_REFUSED);
  requireApprovalPossible('destroy', flags.autoApprove);
  const src = resolveSource(flags);
  if (src.origin.kind === 'terraform-state') throw new Error(terraformManaged(src, 'keyward destroy would delete its objects behind its back'));
  const declared = desiredFromManifest(src.manifest, process.env, { lenientSecrets: true });
  const record: LastApplied = { version: 1, objects: { ...src.record.objects } };
  for (const o of declared.objects.values()) if (!record.objects[o.id]) record.objects[o.id] = recordedFrom(o);
  const nothing: DesiredState = {
    objects: new Map(),
    exclusiveRoleMounts: new Set(),
    moves: new Map(),
    exclusiveSnapshotConfigs: false,
    fingerprintSalt: declared.fingerprintSalt,
  };
  return planAndApply('destroy', flags, src.manifest.server, nothing, record, src.recordPath);
}
