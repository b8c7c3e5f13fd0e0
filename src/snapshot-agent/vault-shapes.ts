// How the agent's snapshot-auto answers look to its clients. In front of the engine: the engine's
// own names and shapes. In front of Vault Community or OpenBao, standing in for Vault Enterprise:
// Vault's names and Vault's read shapes, with no default keyward invents (terraform-provider-vault
// compares what it reads with what it wrote: "Provider produced inconsistent result after apply").

import type { Translator } from '../client/dialect';
import type { ConfigWire } from '../engine/snapshot/config-routes';
import type { SnapshotStatus } from '../schema/snapshot-status';

/** The status fields Vault sends from the first read on, blank until an attempt sets them. */
const STATUS_BLANKS = ['last_snapshot_start', 'last_snapshot_end', 'last_snapshot_error', 'last_snapshot_url', 'snapshot_start', 'snapshot_url'] as const;

/**
 * Fields keyward fills with a default that Vault reads back absent when the writer left them out:
 * azure_auth_mode has no default in Vault's API (keyward's engine reads "" as shared).
 */
const UNSET_WHEN_OMITTED = ['cloudthree_auth_mode'] as const;

export function agentWire(translator: Translator): ConfigWire {
  const fromClient = (b: Record<string, unknown>) => translator.bodyFromServer('snapshot-config', b);
  if (translator.dialect !== 'vault') return { toClient: (c) => translator.toServer('snapshot-config', c), fromClient };
  return {
    fromClient,
    unsetWhenOmitted: UNSET_WHEN_OMITTED,
    toClient: (config, unset) => {
      const out = translator.toServer('snapshot-config', config);
      for (const f of unset) delete out[translator.fieldName('snapshot-config', f)];
      // Vault reads an unset google_endpoint back as false (TF-vault #1173 works around it).
      if (out.storage_type === 'google-gcs' && (out.google_endpoint === '' || out.google_endpoint === undefined)) out.google_endpoint = false;
      return out;
    },
    statusToClient: (status: SnapshotStatus) => {
      const out: Record<string, unknown> = { ...status };
      for (const f of STATUS_BLANKS) if (out[f] === undefined) out[f] = '';
      // An attempt's error text names stores as the client does (google-gcs, not keyward's).
      if (typeof out.last_snapshot_error === 'string' && out.last_snapshot_error !== '') out.last_snapshot_error = translator.errorsToServer([out.last_snapshot_error])[0];
      return out;
    },
  };
}
