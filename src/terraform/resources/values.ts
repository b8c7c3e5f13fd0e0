// Terraform values ↔ manifest-shaped objects, and the "keep the prior spelling" rule: a planned or
// refreshed field keeps the spelling already in state whenever it means the same (canonical
// comparison from src/reconcile/canonical.ts), so "1h" against 3600 or a /32 CIDR never plans.

import { UNKNOWN, type AttributePath, type AttributeSchema, type Diagnostic, type ObjectValue, type Value } from '../plugin/contract';
import { sameValue, type Json } from '../../reconcile/model';
import { pick as statePick, toManifest as stateToManifest } from '../../terraform-state/manifest-shape';

/** Whether a value is or contains an unknown anywhere. */
export function hasUnknown(v: Value | undefined): boolean {
  if (v === UNKNOWN) return true;
  if (Array.isArray(v)) return v.some(hasUnknown);
  if (v && typeof v === 'object') return Object.values(v).some(hasUnknown);
  return false;
}

export const isObject = (v: Value | undefined): v is ObjectValue => typeof v === 'object' && v !== null && !Array.isArray(v);

export function str(v: Value | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function bool(v: Value | undefined): boolean {
  return v === true;
}

/** A Terraform value's "not set": null, or unknown until apply. */
const notSet = (v: unknown): boolean => v === null || v === UNKNOWN;

/** A known Terraform value as manifest input (nulls and unknowns dropped; sets and lists stay arrays). */
export const toManifest = (v: Value): unknown => stateToManifest(v, notSet);

/** The set, known attributes of an object among `names`, manifest-shaped. */
export const pick = (o: ObjectValue, names: readonly string[]): Record<string, unknown> => statePick(o, names, notSet);

/** A canonical value in the spelling Terraform stores for an attribute of the given kind. */
export type Kind = 'string' | 'duration' | 'number' | 'bool' | 'set' | 'list' | 'map';

/** The Terraform type of an attribute of the given kind (durations are strings such as "1h"). */
export function attributeType(kind: Kind): NonNullable<AttributeSchema['type']> {
  switch (kind) {
    case 'set':
    case 'list':
      return { kind, element: { kind: 'string' } };
    case 'map':
      return { kind: 'map', element: { kind: 'string' } };
    case 'bool':
      return { kind: 'bool' };
    case 'number':
      return { kind: 'number' };
    default:
      return { kind: 'string' };
  }
}

export function spell(kind: Kind, canonical: Json | undefined): Value {
  if (canonical === undefined || canonical === null) return null;
  switch (kind) {
    case 'duration':
    case 'string':
      return String(canonical);
    case 'number':
      return Number(canonical);
    case 'bool':
      return canonical === true;
    case 'set':
    case 'list':
      return (canonical as Json[]).map(String);
    case 'map':
      return Object.fromEntries(Object.entries(canonical as Record<string, Json>).map(([k, x]) => [k, String(x)]));
  }
}

/**
 * Planned value of an attribute (optional ones are also computed: null = the server default,
 * planned in the default's spelling): the prior spelling whenever it means the same as the config
 * (Terraform accepts the prior value as "no change"), else the config's, else the default's.
 */
export function plannedSpelling(kind: Kind, config: Value, prior: Value | undefined, configCanon: Json | undefined, priorCanon: Json | undefined): Value {
  if (config === UNKNOWN) return UNKNOWN;
  if (prior !== undefined && prior !== null && sameValue(configCanon, priorCanon)) return prior;
  if (config !== null) return config;
  return spell(kind, configCanon);
}

/** Refreshed value of an attribute from its live canonical value: the prior spelling when it means the same. */
export function refreshedSpelling(kind: Kind, prior: Value | undefined, priorCanon: Json | undefined, live: Json | undefined): Value {
  if (prior !== undefined && prior !== null && sameValue(priorCanon, live)) return prior;
  return spell(kind, live);
}

/**
 * Planned value of an optional, non-computed attribute (a role's: null = the server default and
 * stays null, so a plan prints only what is declared): plannedSpelling, except that null stays null.
 */
export function plannedDeclared(kind: Kind, config: Value, prior: Value | undefined, configCanon: Json | undefined, priorCanon: Json | undefined): Value {
  return config === null ? null : plannedSpelling(kind, config, prior, configCanon, priorCanon);
}

/**
 * Refreshed value of such an attribute: null when the prior was null and the server holds its
 * default (nothing declared, nothing drifted); else refreshedSpelling, so drift on an undeclared
 * field reads back as the live value and plans back to null (= the default).
 */
export function refreshedDeclared(kind: Kind, prior: Value | undefined, priorCanon: Json | undefined, live: Json | undefined, dflt: Json | undefined): Value {
  if ((prior === undefined || prior === null) && sameValue(live, dflt)) return null;
  return refreshedSpelling(kind, prior, priorCanon, live);
}

export function errorAt(attribute: AttributePath, summary: string, detail?: string): Diagnostic {
  return { severity: 'error', summary, detail, attribute };
}

/** A zod issue path inside a manifest-shaped object, as a Terraform attribute path under `base`. */
export function pathOf(base: AttributePath, issuePath: readonly PropertyKey[]): AttributePath {
  return [...base, ...issuePath.filter((p): p is string | number => typeof p === 'string' || typeof p === 'number').map((p) => (typeof p === 'number' ? { index: p } : p))];
}

/** Renders a path like roles["web"].token_ttl for messages. */
export function showPath(path: AttributePath): string {
  return path.map((s, i) => (typeof s === 'string' ? (i === 0 ? s : `.${s}`) : 'key' in s ? `[${JSON.stringify(s.key)}]` : `[${s.index}]`)).join('');
}
