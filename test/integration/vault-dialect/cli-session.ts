// What the keyward-command tests against the Vault contract server share: a server started for the
// test file, VAULT_ADDR and VAULT_TOKEN (and any extra environment) set for the file and restored
// after it, the command run in-process with everything it printed kept for leak checks, and raw
// writes to the server (changes made outside keyward).

import { runKeyward } from '../../support/keyward-in-process';
import { CONTRACT_TOKEN, startVaultContract, type VaultContract } from '../../support/vault-contract/server';

export interface ContractCli {
  /** The server; set once the file's beforeAll has run. */
  vault: VaultContract;
  /** stdout and stderr of every keyward() call so far. */
  printed: string;
  keyward(...args: string[]): Promise<{ code: number; out: string }>;
  /** A POST straight to the server with the contract token. */
  post(path: string, body: unknown): Promise<Response>;
}

/** Registers the file's beforeAll/afterAll; call at the top level of a test file. */
export function contractCli(env: Record<string, string> = {}): ContractCli {
  const saved = { ...process.env };
  const cli: ContractCli = {
    vault: undefined as unknown as VaultContract,
    printed: '',
    async keyward(...args) {
      const r = await runKeyward(...args);
      cli.printed += r.all;
      return { code: r.code, out: r.all };
    },
    post: (path, body) => fetch(`${cli.vault.url}/v1/${path}`, { method: 'POST', headers: { 'x-vault-token': CONTRACT_TOKEN }, body: JSON.stringify(body) }),
  };
  beforeAll(async () => {
    cli.vault = await startVaultContract();
    Object.assign(process.env, env, { VAULT_ADDR: cli.vault.url, VAULT_TOKEN: CONTRACT_TOKEN });
    delete process.env.KEYWARD_DIALECT;
  });
  afterAll(async () => {
    process.env = saved;
    await cli.vault.close();
  });
  return cli;
}
