// Request bodies for each planned change: only the changed fields on updates (the server merges),
// the full object on creates; secrets are read from the environment here and nowhere else.

import { isDefaultMetadata, finishConfig, roleWriteBody, CONFIG_SECRET } from './canonical';
import { secretValue } from './desired';
import type { DesiredObject, FieldChange, Json } from './model';

export interface SecretSource {
  salt: string;
  env: NodeJS.ProcessEnv;
}

function secretOrClear(d: DesiredObject | undefined, c: FieldChange, src: SecretSource): string {
  const s = d?.secrets[c.field];
  if (c.after === null || !s) return '';
  return secretValue(d.id, c.field, s, src.salt, src.env);
}

/** auth/<mount>/config: changed fields; metadata back to "default" when it equals the default set. */
export function configBody(d: DesiredObject | undefined, changes: readonly FieldChange[], src: SecretSource): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const c of changes) {
    if (c.field === CONFIG_SECRET) body.credentials = secretOrClear(d, c, src);
    else if (c.field === 'iam_metadata' || c.field === 'vm_metadata') body[c.field] = isDefaultMetadata(c.field, c.after) ? 'default' : c.after;
    else if (c.field === 'custom_endpoint') {
      const after = (c.after ?? {}) as Record<string, string>;
      const before = (c.before ?? {}) as Record<string, string>;
      // The server merges endpoint keys: a removed key is cleared with "".
      body.custom_endpoint = { ...Object.fromEntries(Object.keys(before).map((k) => [k, ''])), ...after };
    } else body[c.field] = c.after;
  }
  return body;
}

/** Resetting a config that left the desired state: every field back to its server default. */
export function configResetBody(changes: readonly FieldChange[]): Record<string, unknown> {
  const defaults = finishConfig({});
  const asDefaults: FieldChange[] = changes.filter((c) => c.field in defaults).map((c) => ({ field: c.field, before: c.before, after: defaults[c.field] }));
  return { ...configBody(undefined, asDefaults, { salt: '', env: {} }), credentials: '' };
}

export function roleBody(d: DesiredObject, changes: readonly FieldChange[] | 'all'): Record<string, unknown> {
  if (changes === 'all') return roleWriteBody(d.fields);
  const picked: Record<string, Json> = {};
  for (const c of changes) if (c.after !== undefined) picked[c.field] = c.after;
  return roleWriteBody(picked);
}

/** Snapshot configs: the full non-secret body always (merge keeps omitted secrets), plus the secrets that change. */
export function snapshotBody(d: DesiredObject, changes: readonly FieldChange[] | 'all', src: SecretSource): Record<string, unknown> {
  const body: Record<string, unknown> = { ...d.fields };
  if (changes === 'all') {
    for (const [field, s] of Object.entries(d.secrets)) body[field] = secretValue(d.id, field, s, src.salt, src.env);
  } else {
    for (const c of changes) if (c.sensitive) body[c.field] = secretOrClear(d, c, src);
  }
  return body;
}
