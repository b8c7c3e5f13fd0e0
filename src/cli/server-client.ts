// The client a reconciling command talks to the server with; loaded only by commands that connect.

import { settingsFromEnv, type ServerDialect } from '../client/options';
import { VaultClient } from '../client/vault-client';
import type { ConnectionFlags } from './options';

/** A client for the session; the token comes from $VAULT_TOKEN, then ~/.vault-token. Retries are reported on stderr. */
export function openClient(
  flags: ConnectionFlags,
  manifestServer: { address?: string; namespace?: string; dialect?: ServerDialect; snapshotAddress?: string; cloudPlugin?: string } = {},
): VaultClient {
  const settings = settingsFromEnv(
    {
      address: flags.address,
      snapshotAddress: flags.snapshotAddress,
      cloudPlugin: flags.cloudPlugin,
      namespace: flags.namespace,
      caFile: flags.caCert,
      tlsSkipVerify: flags.tlsSkipVerify,
      dialect: flags.dialect,
    },
    process.env,
    manifestServer,
  );
  settings.connections = Math.max(8, parallelismOf(flags) * 2);
  if (settings.addressWarning) process.stderr.write(`Warning: ${settings.addressWarning}\n`);
  return new VaultClient(settings, {
    onRetry: (e) =>
      process.stderr.write(`retry ${e.method} /v1/${e.path}: attempt ${e.attempt} got ${e.status === 0 ? 'no response' : `HTTP ${e.status}`}, waiting ${e.delayMs} ms\n`),
  });
}

export function parallelismOf(flags: ConnectionFlags): number {
  const n = Number(flags.parallelism ?? '16');
  if (!Number.isInteger(n) || n < 1 || n > 256) throw new Error(`--parallelism must be an integer from 1 to 256, got ${JSON.stringify(flags.parallelism)}`);
  return n;
}
