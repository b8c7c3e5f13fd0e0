// Which store configs would make the agent use its own cloud identity. A config without keys
// means "the SDK's default chain" (environment, shared files, instance metadata, workload
// identity): on the agent, that is the identity it was given for --state, pointed at a bucket and
// endpoint chosen by whoever can write a config. So the agent uses it only when started with
// --allow-ambient-credentials.

import type { SnapshotConfig } from '../schema/snapshot-config';

const set = (v: unknown) => typeof v === 'string' && v !== '';

/** The kind of ambient credentials `config` relies on, or undefined when it carries its own keys (or needs none). */
export function ambientCredentialsOf(config: SnapshotConfig): string | undefined {
  switch (config.storage_type) {
    case 'cloudone-store':
      return set(config.cloudone_access_key_id) ? undefined : "the AWS SDK's default credential chain";
    case 'cloudtwo-store':
      return set(config.cloudtwo_service_account_key) ? undefined : 'Google application default credentials';
    case 'cloudthree-store': {
      const mode = set(config.cloudthree_auth_mode) ? String(config.cloudthree_auth_mode) : 'shared';
      return mode === 'shared' ? undefined : `Azure ${mode} identity`;
    }
    default:
      return undefined;
  }
}

/** The host's vetConfig for an agent started without --allow-ambient-credentials. */
export function refuseAmbientCredentials(config: SnapshotConfig): void {
  const ambient = ambientCredentialsOf(config);
  if (ambient === undefined) return;
  throw new Error(
    `this ${config.storage_type} config carries no store credentials: the agent does not use its own ambient cloud credentials for it (${ambient}) unless started with --allow-ambient-credentials; ` +
      'put the store keys in the config, or start the agent with that flag if its own identity is meant for this bucket',
  );
}
