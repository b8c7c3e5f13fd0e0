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
//
// Lookup: with 64 values of one role's size, comparing bytes one value after another cost about
// 2 µs a call more than a map lookup (426-byte roles), paid by every call of a validate walk,
// which never finds one again; a small value is found by its bytes as a map key instead (exact, no
// hash collision to rule out). Large values, a few at most, are still compared one by one: a key
// would copy megabytes.
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
/** Values up to this many encoded bytes are found by key; larger ones by comparison. */
const KEYED_MAX = 16 * 1024;

interface Entry {
  typeName: string;
  bytes: Buffer;
  value: Value;
  /** The map key of a small value; undefined for a large one. */
  key?: string;
}

export class RecentDecodes {
  /** Newest first. */
  private entries: Entry[] = [];
  private readonly byKey = new Map<string, Entry>();
  private readonly limits: RecentDecodesLimits;

  constructor(limits: Partial<RecentDecodesLimits> = {}) {
    this.limits = { ...DEFAULTS, ...limits };
  }

  decode(typeName: string, bytes: Buffer, decode: () => Value): Value {
    const key = bytes.length <= KEYED_MAX ? `${typeName}\0${bytes.toString('latin1')}` : undefined;
    // A keyed entry is never as long as a large value, so the length test passes over it.
    const hit = key !== undefined ? this.byKey.get(key) : this.entries.find((e) => e.bytes.length === bytes.length && e.typeName === typeName && e.bytes.equals(bytes));
    if (hit) return hit.value;
    const entry: Entry = { typeName, bytes, value: deepFreeze(decode()), key };
    this.entries.unshift(entry);
    if (key !== undefined) this.byKey.set(key, entry);
    this.trim();
    return entry.value;
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
    for (const dropped of this.entries.splice(keep)) if (dropped.key !== undefined) this.byKey.delete(dropped.key);
  }
}
