// Saved plans (plan --out FILE, apply --plan FILE): the plan, the desired objects it was made
// for (fingerprints, never secret values) and where the record lives. Applying refuses when the
// live state or the record moved since the plan.

import { readFileSync, writeFileSync } from 'node:fs';
import type { DesiredState } from './desired';
import type { DesiredObject, Plan } from './model';

export interface PlanFile {
  kind: 'keyward-plan';
  formatVersion: 1;
  plan: Plan;
  desired: {
    objects: DesiredObject[];
    exclusiveRoleMounts: string[];
    /** [declared path, earlier path] pairs (absent in files from before moves existed). */
    moves?: Array<[string, string]>;
    exclusiveSnapshotConfigs: boolean;
    fingerprintSalt: string;
  };
  /** The CLI's record file at plan time, if the record came from a file. */
  recordPath?: string;
}

export function savePlanFile(path: string, plan: Plan, desired: DesiredState, recordPath?: string): void {
  const file: PlanFile = {
    kind: 'keyward-plan',
    formatVersion: 1,
    plan,
    desired: {
      objects: [...desired.objects.values()],
      exclusiveRoleMounts: [...desired.exclusiveRoleMounts].sort(),
      moves: [...desired.moves],
      exclusiveSnapshotConfigs: desired.exclusiveSnapshotConfigs,
      fingerprintSalt: desired.fingerprintSalt,
    },
    recordPath,
  };
  writeFileSync(path, JSON.stringify(file, null, 1) + '\n', { mode: 0o600 });
}

export function loadPlanFile(path: string): { file: PlanFile; desired: DesiredState } {
  const file = JSON.parse(readFileSync(path, 'utf8')) as PlanFile;
  if (file?.kind !== 'keyward-plan' || file.formatVersion !== 1) throw new Error(`${path} is not a keyward plan file (version 1)`);
  const desired: DesiredState = {
    objects: new Map(file.desired.objects.map((o) => [o.id, o])),
    exclusiveRoleMounts: new Set(file.desired.exclusiveRoleMounts),
    moves: new Map(file.desired.moves ?? []),
    exclusiveSnapshotConfigs: file.desired.exclusiveSnapshotConfigs,
    fingerprintSalt: file.desired.fingerprintSalt,
  };
  return { file, desired };
}
