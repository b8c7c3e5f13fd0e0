// A plan shown in the server's own names (plan --show-server-names): field names and enum values
// through the client's translator. Only for display: plans are made, saved and applied in keyward's
// names.

import type { Shape, Translator } from '../client/dialect';
import type { DriftEntry, FieldChange, Json, ObjectKind, Plan } from './model';
import { parseObjectId } from './model';

const SHAPE: Record<ObjectKind, Shape | 'mount'> = { 'auth-mount': 'mount', 'auth-config': 'cloud-config', role: 'cloud-role', 'snapshot-config': 'snapshot-config' };

function names(t: Translator, kind: ObjectKind) {
  const shape = SHAPE[kind];
  const field = (f: string) => (shape === 'mount' ? f : t.fieldName(shape, f));
  const value = (f: string, v: Json | undefined): Json | undefined => {
    if (typeof v !== 'string') return v;
    if (shape === 'mount') return f === 'type' ? t.mountTypeToServer(v) : v;
    return t.fieldValue(shape, f, v);
  };
  return { field, value };
}

export function inServerNames(plan: Plan, t: Translator): Plan {
  if (t.dialect === 'keyward') return plan;
  const change = (kind: ObjectKind, c: FieldChange): FieldChange => {
    const n = names(t, kind);
    const out: FieldChange = { ...c, field: n.field(c.field) };
    if ('before' in c) out.before = n.value(c.field, c.before);
    if ('after' in c) out.after = n.value(c.field, c.after);
    return out;
  };
  const drift = (d: DriftEntry): DriftEntry => {
    const n = names(t, parseObjectId(d.id).kind);
    const out: DriftEntry = { ...d, field: d.field === '*' ? d.field : n.field(d.field) };
    if ('lastApplied' in d) out.lastApplied = n.value(d.field, d.lastApplied);
    if ('live' in d) out.live = n.value(d.field, d.live);
    return out;
  };
  return {
    ...plan,
    objects: plan.objects.map((o) => ({ ...o, changes: o.changes.map((c) => change(o.address.kind, c)) })),
    drift: plan.drift.map(drift),
  };
}
