// Enterprise-only features on a server that is not Enterprise: Vault community and OpenBao do not
// register sys/storage/raft/snapshot-auto at all and answer a bare 404 "unsupported path"
// (hashicorp/vault#12625). keyward checks the edition first and says so plainly.

export class EditionError extends Error {
  constructor(
    readonly feature: string,
    readonly edition: string,
    address: string,
  ) {
    super(
      `${feature} needs Vault Enterprise (a license with the feature), but ${address} is ${edition}: it reports no enterprise edition in sys/health and has no sys/license/status. Point VAULT_ADDR at an Enterprise cluster, or remove the snapshot configs from this stack`,
    );
    this.name = 'EditionError';
  }
}
