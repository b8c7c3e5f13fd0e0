// Field-by-field comparison of two answers to the same request. An answer is flattened to
// `status` plus one entry per leaf (`auth.metadata.role`, `data.keys[]`); values that are naturally
// different between two servers are replaced by a marker that keeps only their presence and kind.

/**
 * Fields whose values differ between any two servers by nature, each with the reason. Only the value
 * is ignored: a field present on one side and absent on the other is still a difference.
 */
export const IGNORED_VALUES: Readonly<Record<string, string>> = {
  request_id: 'random per request',
  client_token: 'random token',
  accessor: 'random accessor',
  entity_id: 'random entity id',
  canonical_id: 'random entity id',
  mount_accessor: 'random mount accessor',
  id: 'random (token id, entity id, namespace id)',
  uuid: 'random mount uuid',
  role_id: 'random role id',
  migration_id: 'random migration id',
  cluster_id: 'random per cluster',
  cluster_name: 'generated per cluster',
  creation_time: 'a time',
  expire_time: 'a time',
  issue_time: 'a time',
  last_update_time: 'a time',
  last_renewal_time: 'a time',
  server_time_utc: 'a time',
  ttl: 'counts down between the request and the answer',
  version: 'server version',
  running_plugin_version: 'server and plugin version',
  running_sha256: 'plugin binary checksum',
  plugin_version: 'plugin version',
  storage_type: 'the storage each server runs on (OpenBao -dev: inmem; the engine: its own store, reported as raft)',
  local_mount_accessor: 'random',
  mount_path_uuid: 'random',
};

/** Error texts differ between any two implementations; the envelope (an `errors` array of strings) is compared. */
const ERROR_TEXT = '<error text>';

type Flat = Map<string, string>;

function flatten(v: unknown, prefix: string, out: Flat): void {
  const key = prefix.split('.').pop()!.replace(/\[\]$/, '');
  // An ignored field keeps its presence (null and absent still differ from a value), not its value.
  if (IGNORED_VALUES[key] !== undefined && v !== null && !(typeof v === 'object' && !Array.isArray(v))) {
    out.set(prefix, '<ignored value>');
    return;
  }
  if (key === 'errors' && Array.isArray(v)) {
    out.set(prefix, v.length === 0 ? '[]' : v.every((e) => typeof e === 'string') ? ERROR_TEXT : JSON.stringify(v));
    return;
  }
  if (Array.isArray(v)) {
    // Lists compare as sets of their leaves: the order of keys, policies and aliases is not a contract.
    if (v.length === 0 || v.every((x) => x === null || typeof x !== 'object')) {
      out.set(prefix, JSON.stringify([...v].map((x) => JSON.stringify(x)).sort()));
      return;
    }
    v.forEach((x, i) => flatten(x, `${prefix}[${i}]`, out));
    return;
  }
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 0) out.set(prefix, '{}');
    for (const [k, x] of entries) flatten(x, prefix ? `${prefix}.${k}` : k, out);
    return;
  }
  out.set(prefix, JSON.stringify(v));
}

export function flat(a: { status: number; body: unknown }): Flat {
  const out: Flat = new Map([['status', String(a.status)]]);
  flatten(a.body ?? {}, '', out);
  return out;
}

export interface FieldDifference {
  field: string;
  openbao: string | undefined;
  engine: string | undefined;
}

/** The fields where two answers differ (a field only one side has is a difference). */
export function differences(openbao: { status: number; body: unknown }, engine: { status: number; body: unknown }): FieldDifference[] {
  // A different status is one difference: the rest of a refusal and of a success cannot match.
  // The error text goes with it, for the reader of a failing run (it is not compared).
  if (openbao.status !== engine.status) return [{ field: 'status', openbao: statusLine(openbao), engine: statusLine(engine) }];
  const a = flat(openbao);
  const b = flat(engine);
  const out: FieldDifference[] = [];
  for (const field of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    if (a.get(field) !== b.get(field)) out.push({ field, openbao: a.get(field), engine: b.get(field) });
  }
  return out;
}

function statusLine(a: { status: number; body: unknown }): string {
  const errors = (a.body as { errors?: unknown } | undefined)?.errors;
  return Array.isArray(errors) && errors.length > 0 ? `${a.status} (${String(errors[0]).replace(/\s+/g, ' ').slice(0, 160)})` : String(a.status);
}
