// A resource instance's attribute values as manifest input: what is not set dropped, lists and sets
// kept as arrays. Shared by the state and saved-plan reading here and the provider's planning
// (src/terraform/resources/values.ts, which adds its unknown marker to "not set"). It imports
// nothing: the provider loads it while serving its schema, before zod or any plan code.

/** Whether a value means "not set" (a state's null; the provider adds its unknown marker). */
export type Absent = (v: unknown) => boolean;
const isNull: Absent = (v) => v === null;

/** A JSON value as manifest input: absent values (nulls) dropped from objects; lists and sets stay arrays. */
export function toManifest(v: unknown, absent: Absent = isNull): unknown {
  if (absent(v)) return undefined;
  if (Array.isArray(v)) return v.map((x) => toManifest(x, absent));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (!absent(x)) out[k] = toManifest(x, absent);
    return out;
  }
  return v;
}

/** The set attributes of an object among `names`, manifest-shaped. */
export function pick(o: Readonly<Record<string, unknown>>, names: readonly string[], absent: Absent = isNull): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const n of names) if (o[n] !== undefined && !absent(o[n])) out[n] = toManifest(o[n], absent);
  return out;
}
