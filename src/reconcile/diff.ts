// The diff as a pure function: desired state + live state + last-applied record -> per object an
// action with field-level changes, plus the drift section (live differs from what was applied).

import type { DesiredState } from './desired';
import type { LiveState } from './live';
import { KIND_ORDER, objectId, parseObjectId, sameValue, summarize, type DesiredObject, type DriftEntry, type FieldChange, type LiveObject, type ObjectPlan } from './model';
import { CONFIG_SECRET, rotationConfigured } from '../schema/cloud-config-fields';
import { credentialsDecision } from './objects/auth-config';
import { mountDestroy, moveWarning } from './objects/auth-mount';
import { roleDecision } from './objects/role';
import { undeclaredSecretWarning } from './objects/snapshot-config';
import { APPLIED_UNKNOWN_FINGERPRINT, type LastApplied, type RecordedObject } from './record';

export interface DiffResult {
  objects: ObjectPlan[];
  drift: DriftEntry[];
}

const parentMountId = (o: { address: { mount?: string; kind: string } }) => (o.address.kind === 'auth-mount' || !o.address.mount ? undefined : `auth/${o.address.mount}`);

function fieldChanges(d: DesiredObject, live: LiveObject | undefined): { changes: FieldChange[]; unchanged: number } {
  const changes: FieldChange[] = [];
  let unchanged = 0;
  for (const [field, after] of Object.entries(d.fields)) {
    const before = live?.fields[field];
    if (live && sameValue(before, after)) {
      unchanged++;
      continue;
    }
    const c: FieldChange = { field, after };
    if (live && before !== undefined) c.before = before;
    if (live && d.immutable.includes(field)) c.forcesReplace = true;
    changes.push(c);
  }
  return { changes, unchanged };
}

/** Secret fields: compared through fingerprints (reads never return secrets). */
function secretChanges(
  d: DesiredObject,
  live: LiveObject | undefined,
  rec: RecordedObject | undefined,
  force: boolean,
): { changes: FieldChange[]; unchanged: number; warnings: string[] } {
  const changes: FieldChange[] = [];
  const warnings: string[] = [];
  let unchanged = 0;
  const names = new Set([...Object.keys(d.secrets), ...Object.keys(live?.secrets ?? {})]);
  for (const field of [...names].sort()) {
    const want = d.secrets[field];
    const state = live?.secrets[field] ?? 'unset';
    if (!live) {
      if (want) changes.push({ field, sensitive: true, after: '(sensitive)' });
      continue;
    }
    if (d.address.kind === 'auth-config' && field === CONFIG_SECRET) {
      const recorded = rec?.secrets[field];
      const decision = credentialsDecision({
        declared: want !== undefined,
        declaredKeyId: want?.keyId,
        lastApply: recorded === undefined ? 'none' : recorded === want?.fingerprint || recorded === APPLIED_UNKNOWN_FINGERPRINT ? 'same' : 'changed',
        setByKeyward: recorded !== undefined,
        liveSet: state === 'set',
        liveKeyId: live.observed[field],
        rotates: rotationConfigured(d.fields),
        force,
      });
      if (decision.warning) warnings.push(`${field}: ${decision.warning}`);
      if (decision.send === 'value') changes.push({ field, sensitive: true, before: state === 'set' ? '(sensitive)' : null, after: '(sensitive)' });
      else if (decision.send === 'clear') changes.push({ field, sensitive: true, before: '(sensitive)', after: null });
      else unchanged++;
      continue;
    }
    if (want) {
      const recorded = rec?.secrets[field];
      const inSync = recorded === want.fingerprint || (recorded === APPLIED_UNKNOWN_FINGERPRINT && state !== 'unset');
      if (state === 'unset' || !inSync || force) {
        changes.push({ field, sensitive: true, before: state === 'unset' ? null : '(sensitive)', after: '(sensitive)' });
      } else unchanged++;
    } else if (state === 'set' || (state === 'unknown' && rec?.secrets[field] !== undefined)) {
      // Absent from the desired object means the server default: no secret.
      changes.push({ field, sensitive: true, before: '(sensitive)', after: null });
      if (rec?.secrets[field] === undefined) warnings.push(undeclaredSecretWarning(field));
    } else unchanged++;
  }
  return { changes, unchanged, warnings };
}

/** Drift of fields since the last apply; a key the server moved to is the plan's warning, not drift. */
function driftOf(id: string, rec: RecordedObject | undefined, live: LiveObject | undefined): DriftEntry[] {
  if (!rec) return [];
  if (!live) return [{ id, field: '*', kind: 'deleted' }];
  const out: DriftEntry[] = [];
  for (const [field, applied] of Object.entries(rec.fields)) {
    if (field in live.fields && !sameValue(applied, live.fields[field])) out.push({ id, field, lastApplied: applied, live: live.fields[field], kind: 'changed' });
  }
  return out;
}

export function diff(desired: DesiredState, live: LiveState, record: LastApplied): DiffResult {
  const plans = new Map<string, ObjectPlan>();
  const drift: DriftEntry[] = [];

  // Declared objects, parents first so children of a replaced or created mount are created.
  const declared = [...desired.objects.values()].sort((a, b) => KIND_ORDER.indexOf(a.address.kind) - KIND_ORDER.indexOf(b.address.kind));
  for (const d of declared) {
    const parent = parentMountId(d);
    const parentPlan = parent ? plans.get(parent) : undefined;
    const recreated = parentPlan?.action === 'replace' || parentPlan?.action === 'create';
    const l = recreated ? undefined : live.objects.get(d.id);
    // A moved mount's objects were recorded under its earlier path.
    const movedFrom = d.address.mount ? live.moved.get(d.address.mount) : undefined;
    const rec = record.objects[d.id] ?? (movedFrom ? record.objects[objectId({ ...d.address, mount: movedFrom })] : undefined);
    const f = fieldChanges(d, l);
    const s = secretChanges(d, l, rec, desired.resend?.has(d.id) ?? false);
    const changes = [...f.changes, ...s.changes];
    // A mount read at its earlier path moves there (sys/remount): a change of `path`.
    const moving = d.address.kind === 'auth-mount' && l && movedFrom;
    if (moving) changes.unshift({ field: 'path', before: movedFrom, after: d.address.mount! });
    // A role's action is its shared decision (objects/role.ts), the one the provider's role resources make.
    const action =
      d.address.kind === 'role'
        ? roleDecision(l?.fields, d.fields).action
        : !l
          ? 'create'
          : changes.some((c) => c.forcesReplace)
            ? 'replace'
            : changes.length > 0
              ? 'update'
              : 'no-op';
    const plan: ObjectPlan = { id: d.id, address: d.address, action, reason: 'declared', changes, unchangedFields: f.unchanged + s.unchanged };
    const warnings = [...(moving ? [moveWarning(movedFrom, d.address.mount!)] : []), ...s.warnings];
    if (warnings.length > 0) plan.warnings = warnings;
    plans.set(d.id, plan);
    drift.push(...driftOf(d.id, rec, live.objects.get(d.id)));
  }

  // Managed before, no longer declared: delete (a config cannot be deleted: it is reset).
  const deleting = (id: string, reason: string, l: LiveObject | undefined) => {
    const changes: FieldChange[] = Object.entries(l?.fields ?? {}).map(([field, before]) => ({ field, before }));
    plans.set(id, { id, address: parseObjectId(id), action: 'delete', reason, changes, unchangedFields: 0 });
  };
  // A mount that also holds roles this stack never managed is kept (with its config): disabling
  // it would delete those roles, and objects never declared are left alone.
  const kept = new Map<string, string>();
  for (const id of Object.keys(record.objects)) {
    const a = parseObjectId(id);
    if (a.kind !== 'auth-mount' || desired.objects.has(id) || !live.objects.has(id)) continue;
    const foreign = (live.listedRoles.get(a.mount!) ?? []).filter((n) => !record.objects[`${id}/role/${n}`] && !desired.objects.has(`${id}/role/${n}`));
    const outcome = mountDestroy(a.mount!, foreign);
    if (outcome.kept) kept.set(a.mount!, outcome.kept);
  }
  for (const id of Object.keys(record.objects).sort()) {
    if (desired.objects.has(id)) continue;
    const l = live.objects.get(id);
    if (!l) continue;
    const a = parseObjectId(id);
    if ((a.kind === 'auth-mount' || a.kind === 'auth-config') && kept.has(a.mount!)) {
      plans.set(id, { id, address: a, action: 'no-op', reason: `kept: ${kept.get(a.mount!)!}`, changes: [], unchangedFields: 0 });
      continue;
    }
    const mountGone = a.mount && a.kind !== 'auth-mount' && !desired.objects.has(`auth/${a.mount}`);
    if (a.kind === 'auth-config' && mountGone) continue;
    deleting(id, a.kind === 'auth-config' ? 'removed from the desired state (reset to server defaults)' : 'removed from the desired state', l);
  }

  // Exclusive scopes: undeclared objects are deleted too.
  for (const l of live.objects.values()) {
    if (plans.has(l.id) || desired.objects.has(l.id)) continue;
    const a = l.address;
    if (a.kind === 'role' && desired.exclusiveRoleMounts.has(a.mount!)) deleting(l.id, 'not declared in an exclusive scope (exclusiveRoles)', l);
    if (a.kind === 'snapshot-config' && desired.exclusiveSnapshotConfigs) deleting(l.id, 'not declared in an exclusive scope (exclusiveSnapshotConfigs)', l);
  }

  const objects = [...plans.values()].sort((a, b) => KIND_ORDER.indexOf(a.address.kind) - KIND_ORDER.indexOf(b.address.kind) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { objects, drift };
}

export { summarize };
