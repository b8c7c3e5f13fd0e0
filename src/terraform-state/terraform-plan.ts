// Terraform's own decision in keyward's plan format: `terraform show -json <saved plan>` turned into
// a keyward Plan (per object create / update / replace / delete with field changes, drift from
// `resource_drift`), so a pull-request comment shows what `terraform apply` of that plan will do,
// rendered like `keyward plan`'s. Objects come from the resources' before and after values through
// the same code that reads a state (state-record.ts); what each change's `actions` list does on the
// server is decided once, by effectOf. Newer plan JSON (Terraform 1.12+ `before_identity` /
// `after_identity`, 1.14+ `deferred_changes` and `action_invocations`) is read, not refused: identities
// name a resource, never carry its values; a deferred change is not applied by this plan (Terraform
// plans it again on a later run), so it is shown apart (`Plan.deferred`), decided like a planned change
// but outside the summary's counts; an action invocation is a provider action, not a keyward object.

import { createHash } from 'node:crypto';
import { KIND_ORDER, objectId, parseObjectId, sameValue, summarize, type DeferredObject, type DriftEntry, type FieldChange, type ObjectPlan, type Plan } from '../reconcile/model';
import { withMeanings } from '../reconcile/meaning';
import { decide, replacedReason, writtenWhole } from '../reconcile/objects/decide';
import { mountMove } from '../reconcile/objects/mount-move';
import { withRoleServerRules } from '../reconcile/server-rules';
import type { RecordedObject } from '../reconcile/record';
import { isObject, type ObjectValue } from './resource-values';
import { addInstance, emptyStateRecord, isKeywardResource, type StateRecord } from './state-record';

/** The server dialect the rules and meanings take (the client's, which this part does not import). */
type ServerDialect = Parameters<typeof withMeanings>[2];

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
  /** Terraform 1.9+ with deferral allowed (`terraform plan -allow-deferral`): changes left to a later run. */
  deferred_changes?: Array<{ reason?: string; resource_change?: ResourceChange }>;
  configuration?: { provider_config?: Record<string, { name?: string; expressions?: { address?: { constant_value?: unknown }; dialect?: { constant_value?: unknown } } }> };
}

const emptyRecorded: RecordedObject = { fields: {}, secrets: {}, observed: {} };

/** Why an object Terraform forgets (a `removed` block with `destroy = false`) is left alone. */
export const FORGOTTEN_REASON = 'removed from the stack with `removed { lifecycle { destroy = false } }`: Terraform forgets it, the object stays on the server';
/** Why a replace whose earlier object Terraform forgets deletes nothing. */
export const REPLACE_FORGETTING_REASON = 'Terraform creates it anew and forgets the earlier object (destroy = false): it is written over, nothing is deleted on the server';

/**
 * What one resource change does on the server, read from its `actions` exactly as Terraform
 * writes them (internal/command/jsonplan; the format page lists the pairs without the forget
 * ones): `no-op` and `read` change nothing; `create` and `update` write; `delete` destroys;
 * `delete,create` and `create,delete` replace; `forget` (Terraform 1.7+, a `removed` block with
 * `lifecycle { destroy = false }`) drops the object from the state and leaves it on the server;
 * `create,forget` and `forget,create` (a replace under a resource's `lifecycle { destroy = false }`,
 * newer than 1.15) create the new object and forget the earlier one, destroying nothing. A list
 * Terraform may add later is read from its values (`values`), as before: the before and after
 * objects say what exists on each side.
 */
export type TerraformEffect = 'none' | 'write' | 'destroy' | 'replace' | 'forget' | 'replace-forgetting' | 'values';
export function effectOf(actions: readonly unknown[] | undefined): TerraformEffect {
  switch ((actions ?? []).join(',')) {
    case 'no-op':
    case 'read':
      return 'none';
    case 'create':
    case 'update':
      return 'write';
    case 'delete':
      return 'destroy';
    case 'delete,create':
    case 'create,delete':
      return 'replace';
    case 'forget':
      return 'forget';
    case 'create,forget':
    case 'forget,create':
      return 'replace-forgetting';
    default:
      return 'values';
  }
}
const forgets = (rc: ResourceChange) => {
  const e = effectOf(rc.change?.actions);
  return e === 'forget' || e === 'replace-forgetting';
};

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
    // A forgotten exclusive set deletes nothing: its configs stay on the server with it.
    if (rc.type !== 'keyward_exclusive_snapshot_configs' || forgets(rc)) continue;
    const after = new Set(names(rc.change?.after));
    out.push(...names(rc.change?.before).filter((n) => !after.has(n)));
  }
  return out;
}

/** Secret differences between two records: fingerprints (or write-only versions) compared. */
function secretChanges(before: RecordedObject | undefined, after: RecordedObject): { changes: FieldChange[]; unchanged: number } {
  const changes: FieldChange[] = [];
  let unchanged = 0;
  for (const field of [...new Set([...Object.keys(after.secrets), ...Object.keys(before?.secrets ?? {})])].sort()) {
    const b = before?.secrets[field];
    const a = after.secrets[field];
    if (before && b === a) unchanged++;
    else if (a === undefined) changes.push({ field, sensitive: true, before: '(sensitive)', after: null });
    else changes.push({ field, sensitive: true, ...(b === undefined ? {} : { before: '(sensitive)' }), after: '(sensitive)' });
  }
  return { changes, unchanged };
}

/** One object's plan: the shared decision (objects/decide.ts) on the saved plan's prior and planned values. */
function objectChange(
  id: string,
  before: RecordedObject | undefined,
  after: RecordedObject | undefined,
  retained: Set<string>,
  moves: Map<string, string>,
  planned: Record<string, RecordedObject>,
  forgotten: Set<string>,
  replaced: Map<string, string>,
  prior: Record<string, RecordedObject>,
): ObjectPlan | undefined {
  const address = parseObjectId(id);
  // Terraform forgets it and declares nothing in its place: nothing happens on the server.
  if (!after && before && forgotten.has(id)) return { id, address, action: 'no-op', reason: FORGOTTEN_REASON, changes: [], unchangedFields: Object.keys(before.fields).length };
  const mountId = address.mount ? `auth/${address.mount}` : undefined;
  const mountRemoved = address.kind !== 'auth-mount' && mountId !== undefined && !(mountId in planned);
  const from = address.mount !== undefined ? moves.get(address.mount) : undefined;
  const config = address.mount !== undefined ? planned[objectId({ kind: 'auth-config', mount: address.mount })] : undefined;
  // Terraform destroys and creates the resource: the object is deleted and created again on the
  // server whatever its fields say (a mount's tokens are revoked, a role's logins fail in between).
  const by = replaced.get(id);
  const replacedWith = by === undefined ? undefined : replacedReason(by);
  const s = after ? secretChanges(writtenWhole(address.kind, replacedWith) ? undefined : before, after) : { changes: [], unchanged: 0 };
  const d = decide(address.kind, after?.fields, before?.fields, {
    move: address.mount !== undefined ? mountMove({ to: address.mount, recorded: from, config: config?.fields }) : undefined,
    retained: retained.has(id) || (mountRemoved && retained.has(mountId!)),
    mountRemoved,
    replacedWith,
    roles: address.kind === 'auth-mount' ? rolesOf(prior, address.mount!) : undefined,
    secretChanges: s.changes,
    secretUnchanged: s.unchanged,
  });
  if (!d) return undefined;
  // Created anew over an earlier object Terraform forgets: written over, never deleted first.
  if (after && before && forgotten.has(id) && (d.action === 'replace' || d.action === 'create'))
    return {
      id,
      address,
      action: 'update',
      reason: REPLACE_FORGETTING_REASON,
      changes: d.changes,
      unchangedFields: d.unchangedFields,
      ...(d.warnings.length ? { warnings: d.warnings } : {}),
    };
  const plan: ObjectPlan = { id, address, action: d.action, reason: d.reason, changes: d.changes, unchangedFields: d.unchangedFields };
  if (d.warnings.length > 0) plan.warnings = d.warnings;
  return plan;
}

/** The roles a mount holds in the saved plan's prior (what a replace of the mount deletes). */
function rolesOf(prior: Record<string, RecordedObject>, mount: string): string[] {
  return Object.keys(prior)
    .flatMap((id) => {
      const a = parseObjectId(id);
      return a.kind === 'role' && a.mount === mount ? [a.name!] : [];
    })
    .sort();
}

/**
 * Mounts Terraform moves: a keyward_cloud_auth_backend updated in place (not replaced) whose path
 * changes, identified by its resource as Terraform does; declared path -> earlier path.
 */
function movesOf(changes: readonly ResourceChange[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const rc of changes) {
    if (rc.type !== 'keyward_cloud_auth_backend') continue;
    const effect = effectOf(rc.change?.actions);
    const b = rc.change?.before as { path?: unknown } | null | undefined;
    const a = rc.change?.after as { path?: unknown } | null | undefined;
    if (typeof b?.path !== 'string' || typeof a?.path !== 'string') continue;
    // Only an update in place moves; a replace (also one whose earlier mount is forgotten) is a new mount.
    const move = mountMove({ to: a.path, recorded: b.path, replaced: effect !== 'write' });
    if (move) out.set(move.to, move.from);
  }
  return out;
}

/** A record's objects with a moved mount's ids under its new path, as the move keeps them. */
function afterMoves(objects: Record<string, RecordedObject>, moves: Map<string, string>): Record<string, RecordedObject> {
  const to = new Map([...moves].map(([t, f]) => [f, t]));
  const out: Record<string, RecordedObject> = {};
  for (const [id, o] of Object.entries(objects)) {
    const a = parseObjectId(id);
    const moved = a.mount !== undefined ? to.get(a.mount) : undefined;
    out[moved ? objectId({ ...a, mount: moved }) : id] = o;
  }
  return out;
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

/** The plan's server when the provider block declares no address (the provider then takes VAULT_ADDR). */
export const UNDECLARED_ADDRESS = "(the provider's address)";

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
  const dialect = tf.configuration?.provider_config?.keyward?.expressions?.dialect?.constant_value === 'keyward' ? 'keyward' : 'vault';
  const main = decideChanges(tf.resource_changes ?? [], {});
  const objects = main.plans.sort(byKindAndId);
  const address = tf.configuration?.provider_config?.keyward?.expressions?.address?.constant_value;
  const deferred = deferredOf(tf.deferred_changes ?? [], main.planned, dialect);
  const plan: Plan = {
    formatVersion: 1,
    server: { address: typeof address === 'string' ? address : UNDECLARED_ADDRESS },
    objects,
    drift: driftOf(tf.resource_drift ?? []),
    summary: { ...summarize(objects), ...(deferred.length ? { deferred: deferred.length } : {}) },
    liveDigest: 'sha256:' + createHash('sha256').update(text).digest('hex'),
    lastApplied: { kind: 'terraform-plan', location: source },
    ...(deferred.length ? { deferred } : {}),
  };
  return withRules(plan, main, dialect);
}

const byKindAndId = (a: ObjectPlan, b: ObjectPlan) => KIND_ORDER.indexOf(a.address.kind) - KIND_ORDER.indexOf(b.address.kind) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The role's server rule (objects/role.ts, through server-rules.ts as the CLI's plan applies it) and what each change
 * means for access and backups (meaning.ts). A saved plan holds a refused change only if the provider did not refuse
 * it at plan (it does toward Vault and OpenBao): then the plan shows it refused, and `keyward show` fails the review
 * as `keyward plan` does. Without a dialect in the provider block the server may be Vault or OpenBao, which the
 * message names.
 */
function withRules(plan: Plan, d: Decided, dialect: ServerDialect): Plan {
  const fieldsOf = (id: string) => ({ before: d.prior[id]?.fields, after: d.planned[id]?.fields });
  return withMeanings(withRoleServerRules(plan, fieldsOf, dialect), fieldsOf, dialect);
}

interface Decided {
  plans: ObjectPlan[];
  /** The objects before the changes, under their ids after Terraform's moves. */
  prior: Record<string, RecordedObject>;
  /** The objects the changes leave. */
  planned: Record<string, RecordedObject>;
}

/** Each keyward object's plan from a set of Terraform resource changes; `plannedElsewhere`: objects planned beside them. */
function decideChanges(changes: readonly ResourceChange[], plannedElsewhere: Record<string, RecordedObject>): Decided {
  const before = recordOf(changes, 'before');
  const after = recordOf(changes, 'after');
  const moves = movesOf(changes);
  const retained = new Set(Object.keys(afterMoves(Object.fromEntries(before.retained.map((id) => [id, emptyRecorded])), moves)));
  const prior = afterMoves(before.record.objects, moves);
  const replaced = new Map<string, string>();
  for (const rc of changes.filter((c) => effectOf(c.change?.actions) === 'replace'))
    for (const id of Object.keys(recordOf([rc], 'after').record.objects)) replaced.set(id, rc.address ?? String(rc.type));
  const forgotten = new Set(Object.keys(afterMoves(recordOf(changes.filter(forgets), 'before').record.objects, moves)));
  const planned = after.record.objects;
  const context = { ...plannedElsewhere, ...planned };
  const ids = [...new Set([...Object.keys(prior), ...Object.keys(planned)])];
  const plans = ids.map((id) => objectChange(id, prior[id], planned[id], retained, moves, context, forgotten, replaced, prior)).filter((p): p is ObjectPlan => p !== undefined);
  for (const name of exclusiveDeletes(changes)) {
    const id = `snapshot/${name}`;
    if (!ids.includes(id))
      plans.push({ id, address: parseObjectId(id), action: 'delete', reason: 'not declared in an exclusive scope (exclusiveSnapshotConfigs)', changes: [], unchangedFields: 0 });
  }
  return { plans, prior, planned };
}

/** Terraform's deferral reasons (internal/command/jsonplan, providers.DeferredReason), in words. */
const DEFERRED_REASONS: Record<string, string> = {
  instance_count_unknown: 'its count or for_each is only known after apply',
  resource_config_unknown: 'its configuration holds a value only known after apply',
  provider_config_unknown: 'its provider configuration (the server address, a token) is only known after apply',
  absent_prereq: 'a resource it depends on does not exist yet',
  deferred_prereq: 'a resource it depends on is deferred',
};
export const deferredReasonText = (reason: string): string => DEFERRED_REASONS[reason] ?? `Terraform gave the reason ${JSON.stringify(reason || 'unknown')}`;

/**
 * The changes Terraform deferred, each resource's keyward objects decided as a planned change is (a deferred backend
 * lists its mount, config and roles), with their meanings, objects the change leaves alone left out. `planned`: the
 * objects this plan leaves, which a deferred role's mount may be among.
 */
function deferredOf(changes: NonNullable<JsonPlan['deferred_changes']>, planned: Record<string, RecordedObject>, dialect: ServerDialect): DeferredObject[] {
  const out: DeferredObject[] = [];
  for (const dc of changes) {
    const rc = dc.resource_change;
    if (!rc || rc.mode !== 'managed' || !rc.type || !isKeywardResource(rc.type)) continue;
    const d = decideChanges([rc], planned);
    const reason = typeof dc.reason === 'string' ? dc.reason : 'unknown';
    const objects = withRules({ ...emptyPlan(), objects: d.plans.filter((p) => p.action !== 'no-op').sort(byKindAndId) }, d, dialect).objects;
    for (const object of objects) out.push({ resource: rc.address ?? rc.type, reason, explanation: deferredReasonText(reason), object });
  }
  return out;
}

const emptyPlan = (): Plan => ({ formatVersion: 1, server: { address: '' }, objects: [], drift: [], summary: summarize([]), liveDigest: '' });
