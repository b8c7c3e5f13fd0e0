// A refused token found with one request before any object is read, so it is reported once (the
// Terraform provider's configure) instead of once per object. auth/token/lookup-self is in Vault's
// default policy, as in every token's unless created with no_default_policy.

import { VaultClientError } from './errors';
import type { VaultClient } from './vault-client';

export class TokenRefusedError extends Error {
  constructor(
    readonly summary: string,
    readonly detail: string,
  ) {
    super(`${summary}: ${detail}`);
    this.name = 'TokenRefusedError';
  }
}

/**
 * Throws TokenRefusedError when the server answers 403 to the token's own lookup. Any other failure
 * (no answer, a 5xx, a server that is not Vault) is left to the requests that follow, which name it.
 */
export async function checkToken(client: VaultClient, source: string | undefined): Promise<void> {
  try {
    await client.read('auth/token/lookup-self');
  } catch (e) {
    if (!(e instanceof VaultClientError) || e.status !== 403) return;
    // The error's address: shown without a user or password.
    const at = e.address ?? 'the server';
    const from = source ?? 'the configured token';
    const fix = source === 'VAULT_TOKEN' || source === undefined ? 'Set VAULT_TOKEN to a valid token for' : `Set VAULT_TOKEN, or replace ${source}, with a valid token for`;
    throw new TokenRefusedError(
      `The token from ${from} is refused by ${at}`,
      `${at} answered 403 (permission denied) to the token's own lookup (auth/token/lookup-self, which Vault's default policy allows): the token is not valid there (another server or namespace), has expired or was revoked, or was created without the default policy. ${fix} ${at} (\`vault login\` writes ~/.vault-token) and run again.`,
    );
  }
}
