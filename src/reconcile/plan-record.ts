// What a plan says about the record it was compared with: which record (Terraform's state or
// keyward's own). What the record decides (retain_on_destroy, moves) is the objects' decision's
// (objects/decide.ts), not this stamp's.

import type { Plan } from './model';
import type { RecordOrigin } from './record';

export function withRecord(plan: Plan, origin: RecordOrigin): Plan {
  return { ...plan, lastApplied: origin.location ? { kind: origin.kind, location: origin.location } : { kind: origin.kind } };
}

/** One line naming the record, for the renderers. */
export function recordText(p: Plan): string | undefined {
  const r = p.lastApplied;
  if (!r) return undefined;
  switch (r.kind) {
    case 'terraform-state':
      return `Compared with Terraform's state (what cdktf deploy / terraform apply applied): ${r.location}`;
    case 'terraform-plan':
      return `Terraform's own plan, read from ${r.location} (what terraform apply of that plan does)`;
    case 'keyward-record':
      return `Compared with keyward's last-applied record (what keyward apply applied): ${r.location}`;
    case 'environment':
      return `Compared with the last-applied record in ${r.location}`;
    case 'none':
      return 'No record of an earlier apply (no Terraform state, no keyward record): nothing is deleted and no drift is reported';
  }
}

/** Who changes the server when not out of band, for the drift heading. */
export const applier = (p: Plan): string => (p.lastApplied?.kind === 'terraform-state' || p.lastApplied?.kind === 'terraform-plan' ? 'Terraform' : 'keyward');
