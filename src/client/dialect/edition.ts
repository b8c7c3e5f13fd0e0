// Enterprise-only features on a server that is not Enterprise: Vault community and OpenBao do not
// register sys/storage/raft/snapshot-auto at all and answer a bare 404 "unsupported path"
// (hashicorp/vault#12625); the engine in oss edition refuses writes only. keyward checks the
// edition first, at plan time, and says what to do: run a keyward snapshot agent for the server.

export class EditionError extends Error {
  constructor(
    readonly feature: string,
    readonly edition: string,
    address: string,
    /** Why the server counts as not Enterprise (what it reported). */
    evidence = 'it reports no enterprise edition in sys/health and has no sys/license/status',
  ) {
    super(
      `${feature} needs Vault Enterprise (a license with the feature), but ${address} is ${edition}: ${evidence}. ` +
        `Run \`keyward snapshot-agent --server ${address} --listen HOST:PORT --state DIR\` and point the snapshot configs at the agent (docs/snapshot-agent.md), point VAULT_ADDR at an Enterprise cluster, or remove the snapshot configs from this stack`,
    );
    this.name = 'EditionError';
  }
}
