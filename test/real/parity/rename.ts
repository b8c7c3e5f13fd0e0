// The parity suites' own copy of the seed's rename table (Vault's names → keyward's), from
// /work/shared/reference/cloud-auth.md ("Vault original | This project"). Deliberately not
// src/client's translator: that translator is what the suites check, so it cannot be their ruler.

/** Field names that differ (Vault → keyward); every other field keeps its name. */
export const FIELD_RENAMES: Readonly<Record<string, string>> = {
  gce_alias: 'vm_alias',
  gce_metadata: 'vm_metadata',
  allow_gce_inference: 'allow_vm_inference',
};

/** Values of a `type` field that differ: the mount type and the role type. */
export const TYPE_RENAMES: Readonly<Record<string, string>> = { gcp: 'cloud', gce: 'vm' };

/** The instance alias prefix (`gce_alias=instance_id` names aliases `gce-<id>`; keyward `vm-<id>`). */
export const ALIAS_PREFIX = { vault: 'gce-', keyward: 'vm-' } as const;

const invert = (t: Readonly<Record<string, string>>) => Object.fromEntries(Object.entries(t).map(([k, v]) => [v, k]));
const FIELD_BACK = invert(FIELD_RENAMES);
const TYPE_BACK = invert(TYPE_RENAMES);

type Json = unknown;

function walk(v: Json, fields: Record<string, string>, types: Record<string, string>, alias: [string, string]): Json {
  if (Array.isArray(v)) return v.map((x) => walk(x, fields, types, alias));
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, Json> = {};
  for (const [k, x] of Object.entries(v as Record<string, Json>)) {
    let val = walk(x, fields, types, alias);
    if (k === 'type' && typeof val === 'string' && types[val]) val = types[val];
    // An entity alias's name: the only place the instance alias text appears.
    if (k === 'name' && typeof val === 'string' && /^(gce|vm)-\d+$/.test(val) && val.startsWith(alias[0])) val = alias[1] + val.slice(alias[0].length);
    out[fields[k] ?? k] = val;
  }
  return out;
}

/** A request body in Vault's names → the engine's (keyward's) names. */
export const toKeyward = (body: Json): Json => walk(body, { ...FIELD_RENAMES }, { ...TYPE_RENAMES }, [ALIAS_PREFIX.vault, ALIAS_PREFIX.keyward]);

/** A response body in the engine's names → Vault's names, to compare with OpenBao's. */
export const toVault = (body: Json): Json => walk(body, FIELD_BACK, TYPE_BACK, [ALIAS_PREFIX.keyward, ALIAS_PREFIX.vault]);

/** A request path in Vault's names → keyward's (none of the compared paths carries a renamed word). */
export const pathToKeyward = (path: string): string => path;
