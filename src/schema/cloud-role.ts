// Wire shape of a `cloud` auth role (auth/<mount>/role/:name): the field table (kinds, create
// defaults, owning type, deprecated aliases), zod field schemas, label syntax and list rules.
// The write/merge rules live in cloud-role-write.ts; both are pure so the reconciler can share them.

import { ROLE_FIELDS, type RoleFieldKind, type RoleType } from './cloud-role-fields';
import { field } from './fields';

// The field table is plain data in cloud-role-fields.ts (the Terraform provider's schema needs it without zod).
export * from './cloud-role-fields';

/** Token fields (Vault's tokenutil) in their canonical names. */
export const TOKEN_FIELDS = [
  'token_policies',
  'token_ttl',
  'token_max_ttl',
  'token_explicit_max_ttl',
  'token_period',
  'token_no_default_policy',
  'token_num_uses',
  'token_type',
  'token_bound_cidrs',
] as const;

/** Fields whose presence in a request for the other type is an error (seed 2.2): from the field table. */
const ownFields = (t: RoleType): readonly string[] => ROLE_FIELDS.filter((f) => f.appliesTo === t && !f.aliasOf).map((f) => f.name);
export const TYPE_ONLY_FIELDS: Record<RoleType, readonly string[]> = { iam: ownFields('iam'), vm: ownFields('vm') };

export const TOKEN_TYPE_VALUES = ['default', 'service', 'batch'] as const;
export const MAX_JWT_EXP_LIMIT = 3600;
export const MAX_JWT_EXP_DEFAULT = ROLE_FIELDS.find((f) => f.name === 'max_jwt_exp')!.default as number;

const kindSchema = {
  string: field.string,
  bool: field.bool,
  int: field.int,
  duration: field.duration,
  commaList: field.commaList,
  labels: field.commaList,
};

/** zod field schemas for parseFields on role writes. */
export const roleWriteShape: Record<string, ReturnType<(typeof kindSchema)[RoleFieldKind]>> = Object.fromEntries(ROLE_FIELDS.map((s) => [s.name, kindSchema[s.kind]()]));

/** Edit endpoints (service-accounts, labels). */
export const roleEditShape = { add: field.commaList(), remove: field.commaList() };

/** Role name rule of the router (Vault's \w(([\w-.]+)?\w)?); names are lower-cased on every path. */
export const ROLE_NAME_RE = /^\w(([\w.-]+)?\w)?$/;
export const normalizeRoleName = (name: string): string => name.toLowerCase();

/** Set-valued lists: trimmed, empties dropped, de-duplicated, sorted (case kept). */
export function canonicalSet(items: readonly string[]): string[] {
  return [...new Set(items.map((s) => s.trim()).filter((s) => s !== ''))].sort();
}

/** Ordered lists (token_policies, token_bound_cidrs): trimmed, empties dropped, order kept. */
export function canonicalList(items: readonly string[]): string[] {
  return items.map((s) => s.trim()).filter((s) => s !== '');
}

/** Label syntax: `key:value`, key starts with a lower-case letter, then [\w-]; value [\w-]*. */
export const LABEL_RE = /^([a-z][\w-]*):([\w-]*)$/;

/** Parses `key:value` items into a map (later duplicates win); returns the invalid items too. */
export function parseLabels(items: readonly string[]): { labels: Record<string, string>; invalid: string[] } {
  const labels: Record<string, string> = {};
  const invalid: string[] = [];
  for (const raw of items) {
    const item = raw.trim();
    if (item === '') continue;
    const m = LABEL_RE.exec(item);
    if (!m) invalid.push(item);
    else labels[m[1]] = m[2];
  }
  return { labels, invalid };
}

/** Labels as a map with sorted keys (the canonical read form). */
export function sortedLabels(labels: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.keys(labels)
      .sort()
      .map((k) => [k, labels[k]]),
  );
}

/** Region of a zone name: everything before the last "-" (us-east1-b -> us-east1). */
export function zoneToRegion(zone: string): string {
  const i = zone.lastIndexOf('-');
  return i > 0 ? zone.slice(0, i) : zone;
}
