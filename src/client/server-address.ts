// Which server and which token: resolved once for the CLI and the Terraform provider (without the
// HTTP stack, so the provider's validate can warn without loading it).

import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const sameAddress = (a: string, b: string) => a.trim().replace(/\/+$/, '').toLowerCase() === b.trim().replace(/\/+$/, '').toLowerCase();

/** The declared value wins over the environment variable; a different one is reported. */
function declaredOverEnv(variable: string, what: string, declared: string, fromEnv: string | undefined, same = sameAddress): { address: string; warning?: string } {
  if (!fromEnv || same(fromEnv, declared)) return { address: declared };
  return {
    address: declared,
    warning: `${variable} (${fromEnv}) differs from the ${what} the stack declares (${declared}); using ${declared}. Unset ${variable} or change the stack's ${what}.`,
  };
}

/**
 * A host that would receive the token: the declared one, unless the environment names another.
 * Then neither is used. Whoever exported the variable meant that server, and the declared address
 * may be an example's (`vault.example.com`) or another team's: sending the token to the declared
 * host would hand it to a host the user did not mean, and sending it to the exported one would let
 * a stray export move a production stack. The flag (--address) is explicit and wins over both.
 */
function declaredHostOrRefuse(variable: string, what: string, declared: string, fromEnv: string | undefined): { address: string; refusal?: string } {
  if (!fromEnv || sameAddress(fromEnv, declared)) return { address: declared };
  return {
    address: declared,
    refusal: `${variable} (${fromEnv}) differs from the ${what} the stack declares (${declared}); refusing to send the token to either. Unset ${variable} (or set it to ${declared}), or change the stack's ${what}.`,
  };
}

/**
 * The server address: --address, then the address the stack declares (the provider block, the
 * manifest), then VAULT_ADDR, then Vault's default. The environment never overrides a declared
 * address (as in terraform-provider-vault, a stray `export VAULT_ADDR` never sends a stack
 * elsewhere), and a different VAULT_ADDR is a refusal, not a warning (declaredHostOrRefuse).
 */
export function resolveAddress(flag: string | undefined, declared: string | undefined, env: NodeJS.ProcessEnv): { address: string; refusal?: string } {
  const fromEnv = env.VAULT_ADDR || undefined;
  if (flag) return { address: flag };
  if (declared) return declaredHostOrRefuse('VAULT_ADDR', 'address', declared, fromEnv);
  return { address: fromEnv ?? 'http://127.0.0.1:8200' };
}

/**
 * The snapshot agent's address, by the same rule as the server's: --snapshot-address, then the
 * declared snapshotAddress / snapshot_address, then KEYWARD_SNAPSHOT_ADDR; none means the server.
 * A stray export must not send a production stack's snapshot configs to another agent either, and
 * a different one is refused as the address is (the agent receives the same token).
 */
export function resolveSnapshotAddress(flag: string | undefined, declared: string | undefined, env: NodeJS.ProcessEnv): { address?: string; refusal?: string } {
  const fromEnv = env.KEYWARD_SNAPSHOT_ADDR || undefined;
  if (flag) return { address: flag };
  if (declared) return declaredHostOrRefuse('KEYWARD_SNAPSHOT_ADDR', 'snapshot address', declared, fromEnv);
  return fromEnv ? { address: fromEnv } : {};
}

/** Namespace paths compare without their outer slashes (Vault trims them); names are case-sensitive. */
const sameNamespace = (a: string, b: string) => a.trim().replace(/^\/+|\/+$/g, '') === b.trim().replace(/^\/+|\/+$/g, '');

/**
 * The namespace, by the address's rule: --namespace, then the namespace the stack declares (the
 * provider block, the manifest), then VAULT_NAMESPACE; none means the root namespace. Declared wins
 * as in terraform-provider-vault (its `namespace` only defaults to VAULT_NAMESPACE): a stray export
 * must not send a stack's plan and apply (and an exclusive mount's deletions) into another
 * namespace. A different VAULT_NAMESPACE is reported, not refused: the token goes to the same host.
 */
export function resolveNamespace(flag: string | undefined, declared: string | undefined, env: NodeJS.ProcessEnv): { namespace?: string; warning?: string } {
  const fromEnv = env.VAULT_NAMESPACE || undefined;
  if (flag !== undefined) return { namespace: flag };
  if (declared) {
    const r = declaredOverEnv('VAULT_NAMESPACE', 'namespace', declared, fromEnv, sameNamespace);
    return { namespace: r.address, ...(r.warning ? { warning: r.warning } : {}) };
  }
  return fromEnv ? { namespace: fromEnv } : {};
}

/** The token as Vault's own clients find it: VAULT_TOKEN, then the token helper's file ~/.vault-token. */
export function resolveToken(env: NodeJS.ProcessEnv): { token?: string; source?: string } {
  if (env.VAULT_TOKEN) return { token: env.VAULT_TOKEN, source: 'VAULT_TOKEN' };
  const file = join(env.HOME || homedir(), '.vault-token');
  if (!existsSync(file)) return {};
  const token = readFileSync(file, 'utf8').trim();
  return token ? { token, source: file } : {};
}
