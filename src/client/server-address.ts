// Which server and which token: resolved once for the CLI and the Terraform provider (without the
// HTTP stack, so the provider's validate can warn without loading it).

import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const sameAddress = (a: string, b: string) => a.trim().replace(/\/+$/, '').toLowerCase() === b.trim().replace(/\/+$/, '').toLowerCase();

/**
 * The server address: --address, then the address the stack declares (the provider block, the
 * manifest), then VAULT_ADDR, then Vault's default. Declared wins over the environment as in
 * terraform-provider-vault, so a stray `export VAULT_ADDR` never sends a stack elsewhere; a
 * different VAULT_ADDR is reported.
 */
export function resolveAddress(flag: string | undefined, declared: string | undefined, env: NodeJS.ProcessEnv): { address: string; warning?: string } {
  const fromEnv = env.VAULT_ADDR || undefined;
  if (flag) return { address: flag };
  if (declared) {
    const warning =
      fromEnv && !sameAddress(fromEnv, declared) ? `VAULT_ADDR (${fromEnv}) differs from the address the stack declares (${declared}); using ${declared}. Unset VAULT_ADDR or change the stack's address.` : undefined;
    return warning ? { address: declared, warning } : { address: declared };
  }
  return { address: fromEnv ?? 'http://127.0.0.1:8200' };
}

/** The token as Vault's own clients find it: VAULT_TOKEN, then the token helper's file ~/.vault-token. */
export function resolveToken(env: NodeJS.ProcessEnv): { token?: string; source?: string } {
  if (env.VAULT_TOKEN) return { token: env.VAULT_TOKEN, source: 'VAULT_TOKEN' };
  const file = join(env.HOME || homedir(), '.vault-token');
  if (!existsSync(file)) return {};
  const token = readFileSync(file, 'utf8').trim();
  return token ? { token, source: file } : {};
}
