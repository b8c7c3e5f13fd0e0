// How a scheduler shares its configs with other processes (the snapshot agent: several agents on
// one --state): before each attempt it takes the slot's lease from a coordinator, and stops the
// attempt when the lease is lost. The engine runs alone and has none.

/** A held lease on one attempt slot of one config. */
export interface AttemptClaim {
  /** Aborted when the lease was lost (not renewed in time, taken over): the attempt stops. */
  lost: AbortSignal;
  release(): Promise<void>;
}

/** Decides which of several processes sharing the records takes a slot (the agent's leases). */
export interface AttemptCoordinator {
  /** The lease on `name`'s attempt due at `slot`, or undefined while another process holds it. */
  claim(name: string, slot: number, intervalSeconds: number): Promise<AttemptClaim | undefined>;
  /** How long to wait before asking again after claim() said no. */
  retryMs(intervalSeconds: number): number;
}
