// What a Terraform state says was applied, as keyward's last-applied record: the keyward_*
// resources of a state (format 4, as `terraform state pull` prints it and local backends store it)
// turned into canonical objects with the same code the provider plans with, so a plan made from
// this record agrees with what Terraform's plan of the same change would do.

import { desiredConfigFields, desiredSnapshotFields } from '../reconcile/canonical';
import { objectId } from '../reconcile/model';
import { APPLIED_UNKNOWN_FINGERPRINT, emptyRecord, type LastApplied, type RecordedObject } from '../reconcile/record';
import { CONFIG_SECRET } from '../schema/cloud-config-fields';
import { CONFIG_NAMES, SNAPSHOT_PLAIN_NAMES, SNAPSHOT_SECRETS } from './attribute-names';
import { pick } from './manifest-shape';
import { isObject, mountCanonical, roleCanonical, type ObjectValue } from './resource-values';

export interface StateRecord {
  record: LastApplied;
  /** Ids whose resource sets retain_on_destroy: removing it from the stack leaves the object on the server. */
  retained: string[];
  /** How many keyward resources the state holds (0: the stack was never deployed, or holds none). */
  resources: number;
  /** Each keyward_cloud_auth_backend's mount path by its resource name: Terraform's identity of a backend. */
  backendPaths?: Record<string, string>;
}

interface StateResource {
  mode?: string;
  type?: string;
  name?: string;
  module?: string;
  /** `provider["registry.terraform.io/keyward/keyward"]`, with `.<alias>` for an aliased provider. */
  provider?: string;
  instances?: { attributes?: unknown }[];
}

/** A secret's fingerprint in state, or the marker of a write-only value (declared, value unknown). */
function secretOf(o: ObjectValue, field: string): string | undefined {
  const fp = o[`${field}_fingerprint`];
  if (typeof fp === 'string' && fp !== '') return fp;
  const declared = [`${field}_env`, `${field}_wo_version`].some((a) => o[a] !== null && o[a] !== undefined);
  return declared ? APPLIED_UNKNOWN_FINGERPRINT : undefined;
}

const recorded = (fields: RecordedObject['fields'], secrets: Record<string, string | undefined> = {}): RecordedObject => ({
  fields,
  secrets: Object.fromEntries(Object.entries(secrets).filter((e): e is [string, string] => e[1] !== undefined)),
  observed: {},
});

function addBackend(o: ObjectValue, out: StateRecord): void {
  const mount = String(o.path);
  const id = objectId({ kind: 'auth-mount', mount });
  out.record.objects[id] = recorded(mountCanonical(o));
  if (o.retain_on_destroy === true) out.retained.push(id);
  if (isObject(o.config)) {
    const cid = objectId({ kind: 'auth-config', mount });
    out.record.objects[cid] = recorded(desiredConfigFields(cid, pick(o.config, CONFIG_NAMES)), { [CONFIG_SECRET]: secretOf(o.config, CONFIG_SECRET) });
  }
  if (isObject(o.roles)) {
    for (const [name, role] of Object.entries(o.roles)) {
      if (!isObject(role)) continue;
      const rid = objectId({ kind: 'role', mount, name });
      // Not retained itself: RETAIN is the backend's, for Terraform forgetting the whole resource;
      // a role removed from a kept backend is deleted by Terraform (objects/decide.ts).
      out.record.objects[rid] = recorded({ ...roleCanonical(name, role) });
    }
  }
}

function addRole(o: ObjectValue, out: StateRecord): void {
  const name = String(o.name);
  out.record.objects[objectId({ kind: 'role', mount: String(o.backend), name })] = recorded({ ...roleCanonical(name, o) });
}

function addSnapshot(o: ObjectValue, out: StateRecord): void {
  const id = objectId({ kind: 'snapshot-config', name: String(o.name) });
  const secrets = Object.fromEntries(SNAPSHOT_SECRETS.map((f) => [f, secretOf(o, f)]));
  out.record.objects[id] = recorded(desiredSnapshotFields(id, pick(o, SNAPSHOT_PLAIN_NAMES)), secrets);
  if (o.retain_on_destroy === true) out.retained.push(id);
}

const ADDERS: Record<string, (o: ObjectValue, out: StateRecord) => void> = {
  keyward_cloud_auth_backend: addBackend,
  keyward_cloud_auth_role: addRole,
  keyward_snapshot_auto_config: addSnapshot,
};

/** Whether a resource type is one of keyward's (its instances are in a record). */
export const isKeywardResource = (type: string): boolean => type in ADDERS;

/** The objects of one keyward resource instance's attributes, added to `out`. */
export function addInstance(type: string, attributes: ObjectValue, out: StateRecord): void {
  const add = ADDERS[type];
  if (!add) return;
  out.resources++;
  add(attributes, out);
}

export const emptyStateRecord = (): StateRecord => ({ record: emptyRecord(), retained: [], resources: 0 });

/** The provider alias a state resource uses (undefined: the default provider block). */
const aliasOf = (provider: string | undefined): string | undefined => /\]\.([\w-]+)$/.exec(provider ?? '')?.[1];

/**
 * The record of a Terraform state (JSON text or parsed): the keyward resources of one server, the
 * default provider block's or `alias`'s (a stack may target several servers); others are ignored.
 */
export function recordFromState(state: unknown, alias?: string): StateRecord {
  const parsed: unknown = typeof state === 'string' ? JSON.parse(state) : state;
  if (!parsed || typeof parsed !== 'object' || !Array.isArray((parsed as { resources?: unknown }).resources)) {
    throw new Error('not a Terraform state (expected a JSON object with "resources")');
  }
  const version = (parsed as { version?: unknown }).version;
  if (version !== 4) throw new Error(`Terraform state format version ${JSON.stringify(version)} is not supported (expected 4, Terraform >= 0.12)`);
  const out = emptyStateRecord();
  for (const r of (parsed as { resources: StateResource[] }).resources) {
    if (r.mode !== 'managed' || !r.type || !isKeywardResource(r.type) || aliasOf(r.provider) !== alias) continue;
    for (const i of r.instances ?? []) {
      if (!isObject(i.attributes as ObjectValue)) continue;
      addInstance(r.type, i.attributes as ObjectValue, out);
      const path = (i.attributes as ObjectValue).path;
      if (r.type === 'keyward_cloud_auth_backend' && r.name && !r.module && r.instances?.length === 1 && typeof path === 'string') (out.backendPaths ??= {})[r.name] = path;
    }
  }
  return out;
}
