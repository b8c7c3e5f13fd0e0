// Who may call the agent: exactly who Vault Enterprise lets call snapshot-auto, decided by the
// managed server's own policies with the caller's own token (sys/capabilities-self). The token is
// used for that one request and never stored or logged.

import { VaultClientError } from '../client/errors';
import { ApiError, Errors } from '../schema/errors';
import type { ManagedServer } from './managed-server';

export type AgentOperation = 'read' | 'list' | 'create' | 'update' | 'delete';

/**
 * Throws 403 unless `token` holds `operation` on `path` and, on config paths, sudo (Vault marks
 * snapshot-auto/config root-protected: api-docs raftautosnapshots.mdx). A root token holds all.
 */
export async function requireCapabilities(server: ManagedServer, token: string | undefined, path: string, operation: AgentOperation, sudo: boolean): Promise<void> {
  if (!token) throw Errors.permissionDenied();
  let caps: string[];
  try {
    caps = await server.capabilities(token, path);
  } catch (e) {
    // No answer (or a 5xx): nothing was decided, so not a 403 the caller would take as final.
    if (VaultClientError.is(e) && (e.status === 0 || e.status >= 500)) {
      throw new ApiError(
        'upstream',
        [
          `could not check the caller's permissions: the managed server ${server.address} did not answer sys/capabilities-self (${e.status === 0 ? 'no response' : `HTTP ${e.status}`})`,
        ],
        503,
      );
    }
    // An unknown, expired or revoked token: the managed server refused to even look it up.
    throw Errors.permissionDenied();
  }
  if (caps.includes('root')) return;
  if (caps.includes('deny') || !caps.includes(operation) || (sudo && !caps.includes('sudo'))) throw Errors.permissionDenied();
}
