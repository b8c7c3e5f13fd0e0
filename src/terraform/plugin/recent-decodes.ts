// Terraform sends the same value to several RPCs of one command: the configuration to
// ValidateResourceConfig, PlanResourceChange and ApplyResourceChange, the prior state to plan and
// apply. At 10,000 roles one decode costs hundreds of milliseconds, so a value decoded once is
// reused while the same bytes come back for the same resource type. Values handed out are
// deep-frozen, so no handler can change what a later call sees (a mutation throws instead).
import type { Value } from './contract';
import { deepFreeze } from './deep-freeze';

export class RecentDecodes {
  private entries: { typeName: string; bytes: Buffer; value: Value }[] = [];

  /** @param max values kept (the newest); each holds its bytes and its decoded value. */
  constructor(private readonly max = 4) {}

  decode(typeName: string, bytes: Buffer, decode: () => Value): Value {
    const hit = this.entries.find((e) => e.typeName === typeName && e.bytes.equals(bytes));
    if (hit) return hit.value;
    const value = deepFreeze(decode());
    this.entries.unshift({ typeName, bytes, value });
    if (this.entries.length > this.max) this.entries.length = this.max;
    return value;
  }
}
