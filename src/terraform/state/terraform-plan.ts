// Terraform's own decision in keyward's plan format: `terraform show -json <saved plan>` turned into
// a keyward Plan (per object create / update / replace / delete with field changes, drift from
// `resource_drift`), so a pull-request comment shows what `terraform apply` of that plan will do,
// rendered like `keyward plan`'s. Objects come from the resources' before and after values through
// the same code that reads a state (state-record.ts).

import { createHash } from 'node:crypto';
import { MOUNT_IMMUTABLE } from '../../reconcile/canonical';
import { KIND_ORDER, parseObjectId, sameValue, summarize, type DriftEntry, type FieldChange, type ObjectPlan, type Plan } from '../../reconcile/model';
import { RETAINED_REASON } from '../../reconcile/plan-record';
import { roleServerProblem } from '../../reconcile/objects/role';
import type { RecordedObject } from '../../reconcile/record';
import type { ObjectValue } from '../plugin/contract';
import { isObject } from '../resources/values';
import { addInstance, emptyStateRecord, isKeywardResource, type StateRecord } from './state-record';

interface Change {
  actions?: string[];
  before?: unknown;
  after?: unknown;
}
interface ResourceChange {
  address?: string;
  mode?: string;
  type?: string;
  change?: Change;
}
interface JsonPlan {
  format_version?: string;
  resource_changes?: ResourceChange[];
  resource_drift?: ResourceChange[];
  configuration?: { provider_config?: Record<string, { name?: string; expressions?: { address?: { constant_value?: unknown }; dialect?: { constant_value?: unknown } } }> };
}

const IMMUTABLE: Record<string, readonly string[]> = { 'auth-mount': MOUNT_IMMUTABLE, 'auth-config': [], role: ['type'], 'snapshot-config': ['storage_type'] };

/**
 * A write-only secret has no fingerprint in plan or state: its version stands for it, so a bumped
 * `*_wo_version` (the value is sent again) shows as a changed secret.
 */
function withVersionFingerprints(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withVersionFingerprints);
  if (!v || typeof v !== 'object') return v;
  const o: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) o[k] = withVersionFingerprints(x);
  for (const [k, x] of Object.entries(v)) {
    const field = k.endsWith('_wo_version') ? k.slice(0, -'_wo_version'.length) : undefined;
    if (field && x !== null && x !== undefined && !o[`${field}_fingerprint`]) o[`${field}_fingerprint`] = `write-only version ${String(x)}`;
  }
  return o;
}

function recordOf(changes: readonly ResourceChange[], side: 'before' | 'after'): StateRecord {
  const out = emptyStateRecord();
  for (const rc of changes) {
    const v = rc.change?.[side];
    if (rc.mode === 'managed' && rc.type && isKeywardResource(rc.type) && isObject(v as ObjectValue)) addInstance(rc.type, withVersionFingerprints(v) as ObjectValue, out);
  }
  return out;
}

/** Snapshot configs an exclusive set deletes: names in its before and not in its after. */
function exclusiveDeletes(changes: readonly ResourceChange[]): string[] {
  const names = (v: unknown) =>
    isObject(v as ObjectValue) && Array.isArray((v as { names?: unknown }).names) ? ((v as { names: unknown[] }).names.filter((n) => typeof n === 'string') as string[]) : [];
  const out: string[] = [];
  for (const rc of changes) {
    if (rc.type !== 'keyward_exclusive_snapshot_configs') continue;
    const after = new Set(names(rc.change?.after));
    out.push(...names(rc.change?.before).filter((n) => !after.has(n)));
  }
  return out;
}

function objectChange(id: string, before: RecordedObject | undefined, after: RecordedObject | undefined, retained: Set<string>): ObjectPlan {
  const address = parseObjectId(id);
  if (!after) {
    const reason = retained.has(id)
      ? RETAINED_REASON
      : address.kind === 'auth-config'
        ? 'removed from the desired state (reset to server defaults)'
        : 'removed from the desired state';
    return { id, address, action: 'delete', reason, changes: Object.entries(before!.fields).map(([field, b]) => ({ field, before: b })), unchangedFields: 0 };
  }
  const changes: FieldChange[] = [];
  let unchanged = 0;
  for (const [field, a] of Object.entries(after.fields)) {
    if (before && sameValue(before.fields[field], a)) {
      unchanged++;
      continue;
    }
    const c: FieldChange = { field, after: a };
    if (before && before.fields[field] !== undefined) c.before = before.fields[field];
    if (before && IMMUTABLE[address.kind].includes(field)) c.forcesReplace = true;
    changes.push(c);
  }
  for (const field of [...new Set([...Object.keys(after.secrets), ...Object.keys(before?.secrets ?? {})])].sort()) {
    const b = before?.secrets[field];
    const a = after.secrets[field];
    if (before && b === a) unchanged++;
    else if (a === undefined) changes.push({ field, sensitive: true, before: '(sensitive)', after: null });
    else changes.push({ field, sensitive: true, ...(b === undefined ? {} : { before: '(sensitive)' }), after: '(sensitive)' });
  }
  const action = !before ? 'create' : changes.some((c) => c.forcesReplace) ? 'replace' : changes.length > 0 ? 'update' : 'no-op';
  return { id, address, action, reason: 'declared', changes, unchangedFields: unchanged };
}

function driftOf(drift: readonly ResourceChange[]): DriftEntry[] {
  const before = recordOf(drift, 'before').record.objects;
  const after = recordOf(drift, 'after').record.objects;
  const out: DriftEntry[] = [];
  for (const id of Object.keys(before).sort()) {
    const live = after[id];
    if (!live) {
      out.push({ id, field: '*', kind: 'deleted' });
      continue;
    }
    for (const [field, applied] of Object.entries(before[id].fields)) {
      if (!sameValue(applied, live.fields[field])) out.push({ id, field, lastApplied: applied, live: live.fields[field], kind: 'changed' });
    }
  }
  return out;
}

/** The keyward plan of a Terraform JSON plan (`terraform show -json tfplan`); `source` names it in the plan. */
export function planFromTerraformJson(text: string, source: string): Plan {
  let tf: JsonPlan;
  try {
    tf = JSON.parse(text) as JsonPlan;
  } catch (e) {
    throw new Error(`${source}: not JSON (${(e as Error).message}); give the output of \`terraform show -json <saved plan>\``);
  }
  if (!tf || typeof tf !== 'object' || typeof tf.format_version !== 'string' || !Array.isArray(tf.resource_changes ?? [])) {
    throw new Error(`${source}: not a Terraform JSON plan (no format_version); give the output of \`terraform show -json <saved plan>\``);
  }
  const changes = tf.resource_changes ?? [];
  const before = recordOf(changes, 'before');
  const after = recordOf(changes, 'after');
  const retained = new Set(before.retained);
  const ids = [...new Set([...Object.keys(before.record.objects), ...Object.keys(after.record.objects)])];
  const plans = ids.map((id) => objectChange(id, before.record.objects[id], after.record.objects[id], retained));
  for (const name of exclusiveDeletes(changes)) {
    const id = `snapshot/${name}`;
    if (!ids.includes(id))
      plans.push({ id, address: parseObjectId(id), action: 'delete', reason: 'not declared in an exclusive scope (exclusiveSnapshotConfigs)', changes: [], unchangedFields: 0 });
  }
  // The role's server rule (objects/role.ts), as the provider's plan said it: a saved plan only
  // holds the warning case (the error stops terraform plan). Without a dialect in the provider
  // block the server may be Vault or OpenBao, which the message names.
  const dialect = tf.configuration?.provider_config?.keyward?.expressions?.dialect?.constant_value === 'keyward' ? 'keyward' : 'vault';
  for (const p of plans) {
    if (p.address.kind !== 'role' || p.action === 'delete') continue;
    const problem = roleServerProblem(dialect, p.action === 'replace' ? undefined : before.record.objects[p.id]?.fields, after.record.objects[p.id]?.fields);
    if (problem) p.warnings = [...(p.warnings ?? []), `${problem.field}: ${problem.message}`];
  }
  const objects = plans.sort((a, b) => KIND_ORDER.indexOf(a.address.kind) - KIND_ORDER.indexOf(b.address.kind) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const address = tf.configuration?.provider_config?.keyward?.expressions?.address?.constant_value;
  return {
    formatVersion: 1,
    server: { address: typeof address === 'string' ? address : "(the provider's address)" },
    objects,
    drift: driftOf(tf.resource_drift ?? []),
    summary: summarize(objects),
    liveDigest: 'sha256:' + createHash('sha256').update(text).digest('hex'),
    lastApplied: { kind: 'terraform-plan', location: source },
  };
}
