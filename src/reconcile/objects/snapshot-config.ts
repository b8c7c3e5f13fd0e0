// The snapshot config's decisions shared by the CLI's diff/apply and the provider: what a write
// does to a stored secret nobody declared, and the order autoload moves need.

/**
 * Vault returns a snapshot config's stored secrets on read (hashicorp/vault#10971) and its docs do
 * not say an update merges: a complete write without a stored secret removes it. The plan says so.
 */
export function undeclaredSecretWarning(field: string): string {
  return `${field} is stored on the server but not declared: this write removes it. To keep it, declare it (an environment variable reference; \`keyward import --snapshots\` declares every stored secret).`;
}

/**
 * Vault allows autoload on one snapshot config at a time (raftautosnapshots.mdx, 1.21). Two
 * declared at once are refused at plan; the message names both.
 */
export function autoloadProblem(enabled: readonly string[]): string | undefined {
  if (enabled.length < 2) return undefined;
  return `autoload_enabled is declared on ${enabled.length} snapshot configs (${enabled.map((n) => `snapshot/${n}`).join(', ')}); Vault allows it on one config at a time`;
}

/** The kind of write a snapshot config plan makes, as far as autoload's order is concerned. */
export interface AutoloadWrite {
  action: 'no-op' | 'create' | 'update' | 'replace' | 'delete';
  /** The autoload_enabled value the write leaves (undefined: not this write's concern). */
  autoloadAfter?: boolean;
}

/**
 * Moving autoload from one config to another: the disable (or the delete) must land before the
 * enable, or Vault refuses the enable. Writes that turn autoload off go in the first phase.
 */
export function autoloadFirst(w: AutoloadWrite): boolean {
  return w.action === 'delete' || w.autoloadAfter === false;
}
