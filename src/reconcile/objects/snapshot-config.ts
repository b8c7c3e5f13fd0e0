// The snapshot config's decisions shared by the CLI's diff/apply and the provider: what a write
// does to a stored secret nobody declared, and the order autoload moves need.

/**
 * Vault returns a snapshot config's stored secrets on read (hashicorp/vault#10971) and its docs do
 * not say an update merges: a complete write without a stored secret removes it. The plan says so.
 */
export function undeclaredSecretWarning(field: string): string {
  return `${field} is stored on the server but not declared: this write removes it. To keep it, declare it (an environment variable reference; \`keyward import --snapshots\` declares every stored secret).`;
}
