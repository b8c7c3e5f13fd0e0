// Request bodies for each planned change; secrets are read from the environment here and nowhere
// else. Cloud configs and roles send only the changed fields on updates: the GCP plugin's
// path_config.go and path_role.go read the stored object and apply the fields sent (merge).
// Snapshot configs always send the complete declared object, secrets included: Vault's docs do not
// say that update merges, so an omitted field may be reset.

import { CONFIG_SECRET } from '../schema/cloud-config-fields';
import { isDefaultMetadata, finishConfig } from './canonical';
import { secretValue } from './desired';
import { sameValue, type DesiredObject, type FieldChange, type Json } from './model';
import { snapshotFieldSpec } from '../schema/snapshot-fields';

export interface SecretSource {
  salt: string;
  env: NodeJS.ProcessEnv;
}

function secretOrClear(d: DesiredObject | undefined, c: FieldChange, src: SecretSource): string {
  const s = d?.secrets[c.field];
  if (c.after === null || !s) return '';
  return secretValue(d.id, c.field, s, src.salt, src.env);
}

/**
 * Fields Vault validates together within one request (automatedrotationutil checks rotation_window
 * against the rotation_schedule of the same request): a change to one sends the group.
 */
const TOGETHER: readonly (readonly string[])[] = [['rotation_schedule', 'rotation_window']];

/** What the config write needs beside the changes: the declared fields and their canonical values. */
export interface ConfigDeclaration {
  fields: Readonly<Record<string, Json>>;
  /** Field names the declaration gives (a declared value is written even when it equals the default). */
  declared: readonly string[];
}

/** auth/<mount>/config: changed fields; metadata back to "default" when it equals the default set. */
export function configBody(
  d: DesiredObject | undefined,
  changes: readonly FieldChange[],
  src: SecretSource,
  decl: ConfigDeclaration | undefined = d && { fields: d.fields, declared: d.declared ?? Object.keys(d.fields) },
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const defaults = finishConfig({});
  const all = [...changes];
  for (const group of TOGETHER) {
    if (!decl || !all.some((c) => group.includes(c.field) && c.after !== null)) continue;
    for (const field of group) if (!all.some((c) => c.field === field)) all.push({ field, after: decl.fields[field] });
  }
  for (const c of all) {
    // A new config's undeclared fields at their defaults are left out: Vault refuses even default
    // WIF fields (identity_token_ttl) on editions without plugin identity tokens. Declared ones go.
    const declared = decl?.declared.includes(c.field) ?? false;
    if (c.before === undefined && c.field !== CONFIG_SECRET && !declared && sameValue(c.after, defaults[c.field])) continue;
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
  // Only what differs from the default is sent: a server without WIF refuses even default WIF fields.
  const asDefaults: FieldChange[] = changes
    .filter((c) => c.field in defaults && !sameValue(c.before, defaults[c.field]))
    .map((c) => ({ field: c.field, before: c.before, after: defaults[c.field] }));
  return { ...configBody(undefined, asDefaults, { salt: '', env: {} }), credentials: '' };
}

/**
 * Snapshot configs: every declared field and every declared secret, on creates and updates alike,
 * so the write is right whether the server merges or replaces. A field at its default that did not
 * change is left out (either way the server keeps the default: a pre-1.21 Vault would only warn
 * about an unknown `autoload_enabled: false`); a secret the declaration dropped is cleared ("").
 */
export function snapshotBody(d: DesiredObject, changes: readonly FieldChange[] | 'all', src: SecretSource): Record<string, unknown> {
  const changed = new Set(changes === 'all' ? [] : changes.map((c) => c.field));
  const secrets: Record<string, string> = {};
  for (const [field, s] of Object.entries(d.secrets)) secrets[field] = secretValue(d.id, field, s, src.salt, src.env);
  if (changes !== 'all') for (const c of changes) if (c.sensitive && c.after === null) secrets[c.field] = '';
  return completeSnapshotBody(d.fields, changed, secrets, d.declared);
}

/**
 * The complete write of a snapshot config (the CLI's and the Terraform provider's): every canonical
 * field that is required, not at its default, or changed (`changed`), and every secret given
 * (values, or "" to clear one the declaration dropped), and every `declared` field.
 */
export function completeSnapshotBody(
  fields: Readonly<Record<string, Json>>,
  changed: ReadonlySet<string>,
  secrets: Readonly<Record<string, string>>,
  declared: readonly string[] = [],
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [field, v] of Object.entries(fields)) {
    const spec = snapshotFieldSpec(field);
    // A declared value is written even at its default; so is a field the server requires to be sent.
    if (changed.has(field) || declared.includes(field) || spec?.required || spec?.alwaysSent || field === 'storage_type' || !sameValue(v, spec?.default ?? null)) body[field] = v;
  }
  return { ...body, ...secrets };
}
