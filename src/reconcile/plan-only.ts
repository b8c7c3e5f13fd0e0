// Plan-only mode in the reconciler: a declared secret whose variable is unset is taken as unchanged,
// that is, given the fingerprint the record of the last apply holds for it, so the plan shows no
// change for it; the plan lists these secrets. A secret with nothing recorded (a new object) stays
// a change to make. Apply never runs from such a desired state (see src/schema/plan-only.ts).

import type { DesiredState } from './desired';
import type { Plan } from './model';
import type { LastApplied } from './record';

export type UnsetSecret = NonNullable<Plan['unsetSecrets']>[number];

/** Gives unset secrets their recorded fingerprints (in place); returns them, for the plan. */
export function keepStoredFingerprints(desired: DesiredState, record: LastApplied): UnsetSecret[] {
  const out: UnsetSecret[] = [];
  for (const o of desired.objects.values()) {
    for (const [field, s] of Object.entries(o.secrets)) {
      if (!s.unset) continue;
      const stored = record.objects[o.id]?.secrets[field];
      if (stored !== undefined) s.fingerprint = stored;
      out.push({ id: o.id, field, env: s.env });
    }
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.field < b.field ? -1 : 1));
}

/** The lines a rendered plan gives unset secrets (none outside plan-only mode). */
export function unsetSecretLines(p: Plan): string[] {
  const list = p.unsetSecrets ?? [];
  if (list.length === 0) return [];
  return [
    `Plan only: ${list.length} secret${list.length === 1 ? '' : 's'} not set, taken as unchanged (the fingerprint of the last apply); applying needs ${list.length === 1 ? 'it' : 'them'}:`,
    ...list.map((s) => `${s.env} (${s.id} ${s.field})`),
  ];
}
