// The reconciler's data model: managed object identities, canonical field values, and the plan as
// plain data with a closed set of actions (terraform's plans.Action), rendered and applied as is.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type ObjectKind = 'auth-mount' | 'auth-config' | 'role' | 'snapshot-config';

/** Apply order: mounts, then config, then roles; snapshot configs are independent. */
export const KIND_ORDER: readonly ObjectKind[] = ['auth-mount', 'auth-config', 'role', 'snapshot-config'];

export interface ObjectAddress {
  kind: ObjectKind;
  /** Auth mount path (auth kinds). */
  mount?: string;
  /** Role or snapshot config name. */
  name?: string;
}

/** Stable identity: "auth/<mount>", "auth/<mount>/config", "auth/<mount>/role/<name>", "snapshot/<name>". */
export function objectId(a: ObjectAddress): string {
  switch (a.kind) {
    case 'auth-mount':
      return `auth/${a.mount}`;
    case 'auth-config':
      return `auth/${a.mount}/config`;
    case 'role':
      return `auth/${a.mount}/role/${a.name}`;
    case 'snapshot-config':
      return `snapshot/${a.name}`;
  }
}

export function parseObjectId(id: string): ObjectAddress {
  if (id.startsWith('snapshot/')) return { kind: 'snapshot-config', name: id.slice('snapshot/'.length) };
  const m = /^auth\/(.+)\/role\/([^/]+)$/.exec(id);
  if (m) return { kind: 'role', mount: m[1], name: m[2] };
  if (id.startsWith('auth/') && id.endsWith('/config')) return { kind: 'auth-config', mount: id.slice(5, -'/config'.length) };
  if (id.startsWith('auth/')) return { kind: 'auth-mount', mount: id.slice(5) };
  throw new Error(`not a keyward object id: ${JSON.stringify(id)}`);
}

/** A secret field of a desired object: where its value comes from and its keyed fingerprint. */
export interface DesiredSecret {
  env: string;
  fingerprint: string;
  /** A key's non-secret identifier (credentials' private_key_id), when the value was readable at plan. */
  keyId?: string;
  /** Plan-only mode: the variable is unset and the secret is taken as unchanged (see plan-only.ts). */
  unset?: boolean;
}

/** What the manifest declares for one object, canonicalized (server defaults filled in). */
export interface DesiredObject {
  id: string;
  address: ObjectAddress;
  /** Canonical non-secret fields, comparable with LiveObject.fields. */
  fields: Record<string, Json>;
  secrets: Record<string, DesiredSecret>;
  /** Fields the declaration names (the rest are defaults filled in); absent: every field counts as declared. */
  declared?: readonly string[];
}

/** Whether a secret is set on the server, as far as a read can tell. */
export type LiveSecretState = 'set' | 'unset' | 'unknown';

export interface LiveObject {
  id: string;
  address: ObjectAddress;
  fields: Record<string, Json>;
  secrets: Record<string, LiveSecretState>;
  /** Non-secret identifiers of secrets (e.g. the credentials' private_key_id), for drift. */
  observed: Record<string, string>;
}

export type Action = 'no-op' | 'create' | 'update' | 'replace' | 'delete';

export interface FieldChange {
  field: string;
  /** Canonical value before (absent: the field does not exist yet). */
  before?: Json;
  after?: Json;
  /** A secret: values are never carried, only whether it is set. */
  sensitive?: boolean;
  /** This difference forces a replace (immutable field). */
  forcesReplace?: boolean;
}

/** What a change means for access and backups (computed in meaning.ts from the field tables' access effects). */
export const MEANING_LABELS = [
  'broadens-access',
  'narrows-access',
  'credential-destination',
  'reduces-backups',
  'locks-out',
  'revokes-tokens',
  'interrupts-logins',
  'needs-review',
] as const;
export type MeaningLabel = (typeof MEANING_LABELS)[number];

export interface Meaning {
  label: MeaningLabel;
  /** The field whose change carries it; absent for the object as a whole (created, deleted, moved). */
  field?: string;
  /** Who gains or loses what, in a sentence. */
  explanation: string;
}

export interface ObjectPlan {
  id: string;
  address: ObjectAddress;
  action: Action;
  /** Why: "declared", "removed from the desired state", "not declared in an exclusive scope". */
  reason?: string;
  changes: FieldChange[];
  unchangedFields: number;
  /** What the user must know about this object's plan (a key left as the server holds it, tokens a move revokes). */
  warnings?: string[];
  /** What the change means for who can log in, what they get, where credentials go, and backups. */
  meanings?: Meaning[];
  /**
   * A change `keyward apply` (and the Terraform provider) refuses to carry out, although the server would accept it:
   * the plan shows it for review, labelled; applying it writes nothing (objects/role.ts roleServerProblem).
   */
  refused?: Refusal;
}

/** Why apply refuses an object's planned change: the built-in rule (a meaning label) and the field. */
export interface Refusal {
  label: MeaningLabel;
  field: string;
  message: string;
}

/**
 * A change Terraform deferred (plan JSON `deferred_changes`, a plan made with deferral allowed): it is not part of
 * this plan (`terraform apply` of it leaves the object alone) and Terraform plans it again on a later run. One entry
 * per keyward object of the deferred resource, decided as a planned change is.
 */
export interface DeferredObject {
  /** Terraform's resource address (`keyward_cloud_auth_backend.later[*]`: an instance whose key is not known yet). */
  resource: string;
  /** Terraform's reason code (`instance_count_unknown`, `provider_config_unknown`, `deferred_prereq`, ...). */
  reason: string;
  /** The reason in words. */
  explanation: string;
  object: ObjectPlan;
}

export interface DriftEntry {
  id: string;
  field: string;
  /** The value last applied by keyward; absent for objects deleted out of band. */
  lastApplied?: Json;
  live?: Json;
  sensitive?: boolean;
  /** "changed", "deleted" (the whole object vanished out of band) or "created" (an undeclared role appeared on a managed mount). */
  kind: 'changed' | 'deleted' | 'created';
}

/** Where the record of what was applied came from; plans say it. */
export interface RecordOrigin {
  /** terraform-plan: the plan is Terraform's own decision, read from its saved plan. */
  kind: 'terraform-state' | 'terraform-plan' | 'keyward-record' | 'environment' | 'none';
  /** A file, `terraform state pull` in a directory, or an environment variable. */
  location?: string;
}

export interface PlanSummary {
  create: number;
  update: number;
  replace: number;
  delete: number;
  noop: number;
  /** Objects whose change Terraform deferred (`Plan.deferred`): counted apart, never as planned changes. */
  deferred?: number;
}

export interface Plan {
  /** Plan format version (docs/plan-json.md). */
  formatVersion: 1;
  server: { address: string; namespace?: string; snapshotAddress?: string };
  objects: ObjectPlan[];
  drift: DriftEntry[];
  summary: PlanSummary;
  /** Digest of the live state the plan was computed from; apply --plan refuses when it moved. */
  liveDigest: string;
  /** The record of what was applied the plan was compared with (deletes and drift come from it). */
  lastApplied?: { kind: RecordOrigin['kind']; location?: string };
  /** Plan-only mode: secrets whose variable is unset, taken as unchanged; applying needs them. */
  unsetSecrets?: { id: string; field: string; env: string }[];
  /** `keyward show`: changes Terraform deferred to a later run (not in `objects`, not in the summary's actions). */
  deferred?: DeferredObject[];
}

export function hasChanges(p: Plan): boolean {
  return p.objects.some((o) => o.action !== 'no-op');
}

export function summarize(objects: readonly ObjectPlan[]): PlanSummary {
  const s: PlanSummary = { create: 0, update: 0, replace: 0, delete: 0, noop: 0 };
  for (const o of objects) {
    if (o.action === 'no-op') s.noop++;
    else s[o.action]++;
  }
  return s;
}

/** Deterministic JSON (sorted keys) for comparison and digests. */
export function stableJson(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
    .join(',')}}`;
}

export const sameValue = (a: unknown, b: unknown): boolean => stableJson(a) === stableJson(b);
