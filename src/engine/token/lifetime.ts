// Token lifetime arithmetic, as Vault does it: the TTL at issue and at renewal, capped by the
// role/mount max TTL (measured from creation) and the explicit max TTL (a hard cap).

/** The system's default and maximum lease TTL: 768h. */
export const SYSTEM_MAX_TTL = 768 * 3600;

export interface LifetimeInput {
  ttl: number;
  maxTtl: number;
  explicitMaxTtl: number;
  period: number;
}

/** TTL in seconds for a new token; also reports whether a cap was applied. */
export function issueTtl(s: LifetimeInput): { ttl: number; capped: boolean } {
  let ttl: number;
  let capped = false;
  if (s.period > 0) {
    ttl = s.period;
  } else {
    ttl = s.ttl > 0 ? s.ttl : SYSTEM_MAX_TTL;
    const max = s.maxTtl > 0 ? Math.min(s.maxTtl, SYSTEM_MAX_TTL) : SYSTEM_MAX_TTL;
    if (ttl > max) {
      ttl = max;
      capped = true;
    }
  }
  if (s.explicitMaxTtl > 0 && ttl > s.explicitMaxTtl) {
    ttl = s.explicitMaxTtl;
    capped = true;
  }
  return { ttl, capped };
}

/**
 * TTL in seconds granted by a renewal at `nowMs` for a token created at `createdMs`; 0 means the
 * token cannot be extended any further.
 */
export function renewTtl(s: LifetimeInput, createdMs: number, nowMs: number, increment: number): number {
  const age = Math.max(0, Math.floor((nowMs - createdMs) / 1000));
  let ttl: number;
  if (s.period > 0) {
    ttl = s.period;
  } else {
    ttl = increment > 0 ? increment : s.ttl > 0 ? s.ttl : SYSTEM_MAX_TTL;
    const max = s.maxTtl > 0 ? Math.min(s.maxTtl, SYSTEM_MAX_TTL) : SYSTEM_MAX_TTL;
    ttl = Math.min(ttl, max - age);
  }
  if (s.explicitMaxTtl > 0) ttl = Math.min(ttl, s.explicitMaxTtl - age);
  return Math.max(0, ttl);
}
