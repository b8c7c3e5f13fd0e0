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
 * The server address: --address, then the address the stack declares (the provider block, the
 * manifest), then VAULT_ADDR, then Vault's default. Declared wins over the environment as in
 * terraform-provider-vault, so a stray `export VAULT_ADDR` never sends a stack elsewhere; a
 * different VAULT_ADDR is reported.
 */
export function resolveAddress(flag: string | undefined, declared: string | undefined, env: NodeJS.ProcessEnv): { address: string; warning?: string } {
  const fromEnv = env.VAULT_ADDR || undefined;
  if (flag) return { address: flag };
  if (declared) return declaredOverEnv('VAULT_ADDR', 'address', declared, fromEnv);
  return { address: fromEnv ?? 'http://127.0.0.1:8200' };
}

/**
 * The snapshot agent's address, by the same rule as the server's: --snapshot-address, then the
 * declared snapshotAddress / snapshot_address, then KEYWARD_SNAPSHOT_ADDR; none means the server.
 * A stray export must not send a production stack's snapshot configs to another agent either.
 */
export function resolveSnapshotAddress(flag: string | undefined, declared: string | undefined, env: NodeJS.ProcessEnv): { address?: string; warning?: string } {
  const fromEnv = env.KEYWARD_SNAPSHOT_ADDR || undefined;
  if (flag) return { address: flag };
  if (declared) return declaredOverEnv('KEYWARD_SNAPSHOT_ADDR', 'snapshot address', declared, fromEnv);
  return fromEnv ? { address: fromEnv } : {};
}

/** Namespace paths compare without their outer slashes (Vault trims them); names are case-sensitive. */
const sameNamespace = (a: string, b: string) => a.trim().replace(/^\/+|\/+$/g, '') === b.trim().replace(/^\/+|\/+$/g, '');

/**
 * The namespace, by the address's rule: --namespace, then the namespace the stack declares (the
 * provider block, the manifest), then VAULT_NAMESPACE; none means the root namespace. Declared wins
 * as in terraform-provider-vault (its `namespace` only defaults to VAULT_NAMESPACE): a stray export
 * must not send a stack's plan and apply (and an exclusive mount's deletions) into another
 * namespace. A different VAULT_NAMESPACE is reported.
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
