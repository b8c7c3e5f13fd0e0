// What a change of each field means for who can log in, what they get, where the server's credentials go and how
// much is backed up: one entry per field of the four field tables (role, auth config, mount, snapshot config). The
// plan's meaning labels (src/reconcile/meaning.ts) are computed from these kinds by comparing values, so a field's
// direction is never fixed: emptying a bound list broadens, giving an empty one its first entry narrows.
// test/unit/schema/access-effects.test.ts fails when a table gains a field this file does not describe.

export type AccessEffect =
  /** A restriction list: empty means "any"; an added entry lets more identities in, a removed one fewer. */
  | { kind: 'bound-set' }
  /** A restriction map (labels), as bound-set with `key=value` entries. */
  | { kind: 'bound-map' }
  /** CIDR blocks tokens may be used from: empty means anywhere; compared by containment. */
  | { kind: 'cidrs' }
  /** What tokens are given (policies): an added entry gives more. */
  | { kind: 'grant-set' }
  /**
   * A limit where more is broader. `zero`: what 0 means: `unlimited` (no limit: the broadest), `default` (the mount's
   * or system's default, 768h unless tuned: taken as the broadest), `off` (the feature is off: the narrowest),
   * `refuses-all` (nothing passes: a lock-out).
   */
  | { kind: 'limit'; zero: 'unlimited' | 'default' | 'off' | 'refuses-all' }
  /** A switch: `broadensWhen` is the value that lets more in. */
  | { kind: 'switch'; broadensWhen: boolean }
  /** Base URLs the server sends its own credentials to. */
  | { kind: 'credential-destination' }
  /** Snapshots kept (retain): lower keeps fewer. */
  | { kind: 'backup-count' }
  /** Time between snapshots: longer takes fewer. */
  | { kind: 'backup-interval' }
  /** Space snapshots may use: lower keeps fewer. */
  | { kind: 'backup-space' }
  /** Where snapshots go: a change starts a new location (the old snapshots stay behind, retention starts over). */
  | { kind: 'backup-location'; sendsCredentials?: boolean }
  /** A change a reviewer must judge (its effect depends on what else the server holds). */
  | { kind: 'review'; why: string }
  /** No effect on access or backups. */
  | { kind: 'neutral' };

const bound = { kind: 'bound-set' } as const;
const neutral = { kind: 'neutral' } as const;
const location = { kind: 'backup-location' } as const;
const endpoint = { kind: 'backup-location', sendsCredentials: true } as const;

/** Role fields (src/schema/cloud-role-fields.ts and token-fields.ts; aliases fold into these). */
export const ROLE_ACCESS: Readonly<Record<string, AccessEffect>> = {
  type: { kind: 'review', why: 'the role is deleted and created again: logins through it fail in between' },
  bound_service_accounts: bound,
  bound_projects: bound,
  bound_zones: bound,
  bound_regions: bound,
  bound_instance_groups: bound,
  bound_labels: { kind: 'bound-map' },
  add_group_aliases: { kind: 'review', why: "group aliases for the project, folders and organization join the token's entity to identity groups, whose policies it then gets" },
  max_jwt_exp: { kind: 'limit', zero: 'refuses-all' },
  allow_vm_inference: { kind: 'switch', broadensWhen: true },
  token_policies: { kind: 'grant-set' },
  token_ttl: { kind: 'limit', zero: 'default' },
  token_max_ttl: { kind: 'limit', zero: 'default' },
  token_explicit_max_ttl: { kind: 'limit', zero: 'unlimited' },
  token_period: { kind: 'limit', zero: 'off' },
  token_no_default_policy: { kind: 'switch', broadensWhen: false },
  token_num_uses: { kind: 'limit', zero: 'unlimited' },
  token_type: { kind: 'review', why: 'batch tokens cannot be renewed or revoked one by one; service tokens are stored' },
  token_bound_cidrs: { kind: 'cidrs' },
};

/** Auth config fields (src/schema/cloud-config-fields.ts). */
export const CONFIG_ACCESS: Readonly<Record<string, AccessEffect>> = {
  credentials: neutral,
  iam_alias: { kind: 'review', why: 'the alias names the entity a login maps to: entity and group policies follow the new name' },
  iam_metadata: { kind: 'review', why: 'token metadata feeds policy templates' },
  vm_alias: { kind: 'review', why: 'the alias names the entity a login maps to: entity and group policies follow the new name' },
  vm_metadata: { kind: 'review', why: 'token metadata feeds policy templates' },
  custom_endpoint: { kind: 'credential-destination' },
  service_account_email: { kind: 'review', why: 'the service account the server acts as toward the cloud' },
  identity_token_audience: { kind: 'review', why: "the workload identity pool that trusts the server's identity tokens" },
  identity_token_ttl: neutral,
  rotation_period: neutral,
  rotation_schedule: neutral,
  rotation_window: neutral,
  disable_automated_rotation: neutral,
};

/** Mount fields (src/schema/auth-mount-fields.ts). */
export const MOUNT_ACCESS: Readonly<Record<string, AccessEffect>> = {
  description: neutral,
  local: { kind: 'review', why: 'the mount is replaced: its tokens are revoked and its roles recreated' },
  default_lease_ttl: { kind: 'limit', zero: 'default' },
  max_lease_ttl: { kind: 'limit', zero: 'default' },
  token_type: { kind: 'review', why: 'batch tokens cannot be renewed or revoked one by one; service tokens are stored' },
  listing_visibility: { kind: 'review', why: '`unauth` lists the mount to callers without a token' },
};

/** Snapshot config fields (src/schema/snapshot-fields.ts). */
export const SNAPSHOT_ACCESS: Readonly<Record<string, AccessEffect>> = {
  storage_type: location,
  interval: { kind: 'backup-interval' },
  retain: { kind: 'backup-count' },
  path_prefix: location,
  file_prefix: location,
  autoload_enabled: { kind: 'review', why: 'the newest snapshot of this config is loaded automatically when the cluster recovers' },
  local_max_space: { kind: 'backup-space' },
  cloudone_bucket: location,
  cloudone_region: location,
  cloudone_access_key_id: neutral,
  cloudone_secret_access_key: neutral,
  cloudone_session_token: neutral,
  cloudone_endpoint: endpoint,
  cloudone_disable_tls: { kind: 'review', why: 'plain HTTP carries the store credentials and the snapshots unencrypted' },
  cloudone_force_path_style: neutral,
  cloudone_enable_kms: { kind: 'review', why: 'how the snapshots are encrypted at rest' },
  cloudone_server_side_encryption: { kind: 'review', why: 'how the snapshots are encrypted at rest' },
  cloudone_kms_key: { kind: 'review', why: 'how the snapshots are encrypted at rest' },
  cloudtwo_bucket: location,
  cloudtwo_service_account_key: neutral,
  cloudtwo_endpoint: endpoint,
  cloudtwo_disable_tls: { kind: 'review', why: 'plain HTTP carries the store credentials and the snapshots unencrypted' },
  cloudthree_container_name: location,
  cloudthree_account_name: location,
  cloudthree_auth_mode: neutral,
  cloudthree_account_key: neutral,
  cloudthree_client_id: neutral,
  cloudthree_blob_environment: endpoint,
  cloudthree_endpoint: endpoint,
};
