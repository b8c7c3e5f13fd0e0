// Terraform sends the same value to several RPCs of one command: the configuration to
// ValidateResourceConfig, PlanResourceChange and ApplyResourceChange, the prior state to plan and
// apply. At 10,000 roles one decode costs hundreds of milliseconds, so a value decoded once is
// reused while the same bytes come back for the same resource type. Values handed out are
// deep-frozen, so no handler can change what a later call sees (a mutation throws instead).
//
// How many are kept: Terraform works on up to 10 resources at once (-parallelism), so with one
// Terraform resource per role the calls of ten resources interleave, and a cache of 4 values found
// a plan's config or prior again 21 times in 1,200 decodes of a 300-role plan walk; 64 small values
// find 600. Large values (a backend's nested roles) are kept by total size instead: at least the
// newest `min`, and no more than `maxBytes` of encoded bytes beyond them.
import type { Value } from './contract';
import { deepFreeze } from './deep-freeze';

export interface RecentDecodesLimits {
  /** Values always kept (the newest), whatever their size. */
  min: number;
  /** Values kept at most. */
  max: number;
  /** Encoded bytes kept at most, once more than `min` values are kept. */
  maxBytes: number;
}

const DEFAULTS: RecentDecodesLimits = { min: 4, max: 64, maxBytes: 4 * 1024 * 1024 };

export class RecentDecodes {
  /** Newest first. */
  private entries: { typeName: string; bytes: Buffer; value: Value }[] = [];
  private readonly limits: RecentDecodesLimits;

  constructor(limits: Partial<RecentDecodesLimits> = {}) {
    this.limits = { ...DEFAULTS, ...limits };
  }

  decode(typeName: string, bytes: Buffer, decode: () => Value): Value {
    const hit = this.entries.find((e) => e.bytes.length === bytes.length && e.typeName === typeName && e.bytes.equals(bytes));
    if (hit) return hit.value;
    const value = deepFreeze(decode());
    this.entries.unshift({ typeName, bytes, value });
    this.trim();
    return value;
  }

  private trim(): void {
    const { min, max, maxBytes } = this.limits;
    let total = 0;
    let keep = 0;
    for (const e of this.entries) {
      total += e.bytes.length;
      if (keep >= max || (keep >= min && total > maxBytes)) break;
      keep++;
    }
    this.entries.length = keep;
  }
}
