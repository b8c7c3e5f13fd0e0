// An auth mount's tune settings (Vault's sys/auth/:path/tune): lease TTL defaults and limits for
// the tokens it issues, the token type it hands out, and its listing visibility. Parsing follows
// vault/logical_system.go: "" leaves a TTL unchanged, "system" (or 0) means the system default.

import { LISTING_VISIBILITY, MOUNT_TOKEN_TYPES } from '../../schema/auth-mount-fields';
import { Errors } from '../../schema/errors';
import { parseDurationSeconds } from '../../schema/duration';
import { SYSTEM_MAX_TTL, type LifetimeInput } from '../token/lifetime';
import type { TokenTypeSetting } from '../token/login-result';

export type MountTokenType = (typeof MOUNT_TOKEN_TYPES)[number];

export interface MountTune {
  /** Seconds; 0 = the system default (768h). */
  default_lease_ttl: number;
  /** Seconds; 0 = the system maximum (768h). */
  max_lease_ttl: number;
  token_type: MountTokenType;
  listing_visibility: '' | 'hidden' | 'unauth';
}

export const defaultTune = (): MountTune => ({ default_lease_ttl: 0, max_lease_ttl: 0, token_type: 'default-service', listing_visibility: '' });

function ttl(field: string, v: unknown, current: number): number {
  if (v === undefined || v === null || v === '') return current;
  if (v === 'system') return 0;
  let s: number;
  try {
    s = parseDurationSeconds(v);
  } catch {
    throw Errors.badRequest(`${field}: ${JSON.stringify(v)} is not a duration (seconds or a Go duration such as "1h"; "system" for the default)`);
  }
  if (s < 0) throw Errors.badRequest(`${field} must not be negative`);
  if (s > SYSTEM_MAX_TTL) throw Errors.badRequest(`${field} of ${s}s is beyond the system maximum lease TTL of ${SYSTEM_MAX_TTL}s`);
  return s;
}

/** The tune fields of `input` applied to `base`; a clear 400 naming the field on a bad value. */
export function applyTune(base: MountTune, input: Record<string, unknown>): MountTune {
  const next: MountTune = { ...base };
  next.default_lease_ttl = ttl('default_lease_ttl', input.default_lease_ttl, next.default_lease_ttl);
  next.max_lease_ttl = ttl('max_lease_ttl', input.max_lease_ttl, next.max_lease_ttl);
  // 0 is "the system's": a default of 0 under a lower max is simply capped by it (as in Vault).
  if (next.max_lease_ttl !== 0 && next.default_lease_ttl > next.max_lease_ttl) {
    throw Errors.badRequest(`default_lease_ttl (${next.default_lease_ttl}s) cannot be greater than max_lease_ttl (${next.max_lease_ttl}s)`);
  }
  if (input.token_type !== undefined && input.token_type !== '') {
    const t = String(input.token_type);
    if (!(MOUNT_TOKEN_TYPES as readonly string[]).includes(t)) throw Errors.badRequest(`token_type: ${JSON.stringify(t)} is not one of ${MOUNT_TOKEN_TYPES.join(', ')}`);
    next.token_type = t as MountTokenType;
  }
  if (input.listing_visibility !== undefined && input.listing_visibility !== null) {
    const v = String(input.listing_visibility);
    if (!(LISTING_VISIBILITY as readonly string[]).includes(v)) throw Errors.badRequest(`listing_visibility: ${JSON.stringify(v)} is not one of "", "hidden", "unauth"`);
    next.listing_visibility = v as MountTune['listing_visibility'];
  }
  return next;
}

/**
 * A role's token lifetime under its mount's limits, as Vault's token store does: a role without a
 * TTL gets the mount's default, and the mount's max caps the role's max.
 */
export function withMountLimits<T extends LifetimeInput>(s: T, tune: MountTune | undefined): T {
  if (!tune) return s;
  // 0 keeps meaning "the system's" (768h), so a mount without settings changes nothing.
  const mountMax = tune.max_lease_ttl;
  const ttl = s.ttl > 0 || tune.default_lease_ttl === 0 ? s.ttl : Math.min(tune.default_lease_ttl, mountMax || SYSTEM_MAX_TTL);
  const maxTtl = mountMax === 0 ? s.maxTtl : s.maxTtl > 0 ? Math.min(s.maxTtl, mountMax) : mountMax;
  return { ...s, ttl, maxTtl };
}

/** The token type a login gets: "service"/"batch" on the mount force it, "default-*" fill in a role's "default". */
export function effectiveTokenType(role: TokenTypeSetting, tune: MountTune | undefined): 'service' | 'batch' {
  const t = tune?.token_type ?? 'default-service';
  if (t === 'service' || t === 'batch') return t;
  if (role === 'service' || role === 'batch') return role;
  return t === 'default-batch' ? 'batch' : 'service';
}
