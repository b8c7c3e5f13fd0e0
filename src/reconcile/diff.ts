// The diff as a pure function: desired state + live state + last-applied record -> per object an
// action with field-level changes, plus the drift section (live differs from what was applied).

import { mountMove } from './objects/mount-move';
import type { DesiredState } from './desired';
import type { LiveState } from './live';
import { KIND_ORDER, objectId, parseObjectId, sameValue, summarize, type DesiredObject, type DriftEntry, type FieldChange, type LiveObject, type ObjectPlan } from './model';
import { CONFIG_SECRET, rotationConfigured } from '../schema/cloud-config-fields';
import { credentialsDecision } from './objects/auth-config';
import { mountDestroy } from './objects/auth-mount';
import { decide, mountRecreatedReason, writtenWhole, type ObjectDecision } from './objects/decide';
import { ROLE_DELETE_COST } from './objects/role';
import { undeclaredSecretWarning } from './objects/snapshot-config';
import { APPLIED_UNKNOWN_FINGERPRINT, type LastApplied, type RecordedObject } from './record';

export interface DiffResult {
  objects: ObjectPlan[];
  drift: DriftEntry[];
}

const parentMountId = (o: { address: { mount?: string; kind: string } }) => (o.address.kind === 'auth-mount' || !o.address.mount ? undefined : `auth/${o.address.mount}`);

const planOf = (id: string, d: ObjectDecision): ObjectPlan => {
  const plan: ObjectPlan = { id, address: parseObjectId(id), action: d.action, reason: d.reason, changes: d.changes, unchangedFields: d.unchangedFields };
  if (d.warnings.length > 0) plan.warnings = d.warnings;
  return plan;
};

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
        workloadIdentity: typeof d.fields.identity_token_audience === 'string' && d.fields.identity_token_audience !== '',
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

/** The roles the live read found on a mount: every listed one (managed or not), else the ones read. */
const rolesOn = (live: LiveState, mount: string): string[] =>
  [...(live.listedRoles.get(mount) ?? [...live.objects.values()].flatMap((o) => (o.address.kind === 'role' && o.address.mount === mount ? [o.address.name!] : [])))].sort();

export function diff(desired: DesiredState, live: LiveState, record: LastApplied): DiffResult {
  const plans = new Map<string, ObjectPlan>();
  const drift: DriftEntry[] = [];

  // Declared objects, parents first so children of a replaced or created mount are created.
  const declared = [...desired.objects.values()].sort((a, b) => KIND_ORDER.indexOf(a.address.kind) - KIND_ORDER.indexOf(b.address.kind));
  for (const d of declared) {
    const parent = parentMountId(d);
    const parentPlan = parent ? plans.get(parent) : undefined;
    // An object on a mount this apply replaces goes with it (a replace, written again whole: compared
    // as a create, secrets included); one a new mount gets is a create.
    const replacedWith = parentPlan?.action === 'replace' ? mountRecreatedReason(d.address.mount!) : undefined;
    const l = parentPlan?.action === 'create' ? undefined : live.objects.get(d.id);
    // A moved mount's objects were recorded under its earlier path.
    const movedFrom = d.address.mount ? live.moved.get(d.address.mount) : undefined;
    const rec = record.objects[d.id] ?? (movedFrom ? record.objects[objectId({ ...d.address, mount: movedFrom })] : undefined);
    const s = secretChanges(d, writtenWhole(d.address.kind, replacedWith) ? undefined : l, rec, desired.resend?.has(d.id) ?? false);
    // A mount read at its earlier path moves there (sys/remount): a change of `path`.
    // The config is part of the move too: its root rotation is registered again (objects/auth-mount.ts).
    const config = d.address.mount ? desired.objects.get(objectId({ kind: 'auth-config', mount: d.address.mount })) : undefined;
    const move = d.address.mount ? mountMove({ to: d.address.mount, recorded: movedFrom, config: config?.fields }) : undefined;
    // A replaced mount takes its roles with it: its decision names them.
    const roles = d.address.kind === 'auth-mount' && l ? rolesOn(live, d.address.mount!) : undefined;
    const decision = decide(d.address.kind, d.fields, l?.fields, {
      move,
      roles,
      replacedWith,
      secretChanges: s.changes,
      secretUnchanged: s.unchanged,
      secretWarnings: s.warnings,
    })!;
    plans.set(d.id, planOf(d.id, decision));
    drift.push(...driftOf(d.id, rec, live.objects.get(d.id)));
  }

  // Managed before, no longer declared: the object's decision (a config is no longer managed).
  const removed = (id: string, l: LiveObject) => {
    const a = parseObjectId(id);
    const mountId = a.mount ? `auth/${a.mount}` : undefined;
    const mountRemoved = a.kind !== 'auth-mount' && mountId !== undefined && !desired.objects.has(mountId);
    // RETAIN is the forgotten resource's: the whole backend (with its roles) or the snapshot config, never a role alone.
    const retained = desired.retained?.has(id) === true || (mountRemoved && desired.retained?.has(mountId!) === true);
    const decision = decide(a.kind, undefined, l.fields, { retained, mountRemoved });
    if (decision) plans.set(id, planOf(id, decision));
  };
  const deleting = (id: string, reason: string, l: LiveObject | undefined) => {
    const changes: FieldChange[] = Object.entries(l?.fields ?? {}).map(([field, before]) => ({ field, before }));
    const a = parseObjectId(id);
    const plan: ObjectPlan = { id, address: a, action: 'delete', reason, changes, unchangedFields: 0 };
    if (a.kind === 'role') plan.warnings = [`deleting the role: ${ROLE_DELETE_COST}`];
    plans.set(id, plan);
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
    // Drift is complete: an object being removed may have been changed, or deleted, outside too.
    drift.push(...driftOf(id, record.objects[id], l));
    if (!l) continue;
    const a = parseObjectId(id);
    if ((a.kind === 'auth-mount' || a.kind === 'auth-config') && kept.has(a.mount!)) {
      plans.set(id, { id, address: a, action: 'no-op', reason: `kept: ${kept.get(a.mount!)!}`, changes: [], unchangedFields: 0 });
      continue;
    }
    removed(id, l);
  }
  // Roles made by hand on a mount the last apply managed: undeclared, left alone (or deleted in an
  // exclusive scope, above), but a reviewer must see that the mount now admits more than the stack says.
  for (const [mount, names] of live.listedRoles) {
    if (!record.objects[`auth/${mount}`]) continue;
    for (const name of names) {
      const id = `auth/${mount}/role/${name}`;
      if (!record.objects[id] && !desired.objects.has(id)) drift.push({ id, field: '*', kind: 'created' });
    }
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
