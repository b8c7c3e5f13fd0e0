// The rename tables between keyward's names (the seed) and Vault's (Vault Enterprise, OpenBao):
// the only place in the code that knows Vault's names. Sources: the rename tables at the top of
// shared/reference/cloud-auth.md and snapshot-auto.md (section 0.1), checked against Vault's API
// docs (website/content/api-docs/auth/gcp.mdx, .../system/storage/raftautosnapshots.mdx).

/** The shapes a request body or read response can have. */
export type Shape = 'cloud-config' | 'cloud-role' | 'snapshot-config' | 'snapshot-status';

/** keyward name -> Vault name. Fields not listed are spelled the same in both dialects. */
export const FIELD_NAMES: Readonly<Record<Shape, Readonly<Record<string, string>>>> = {
  'cloud-config': {
    vm_alias: 'gce_alias',
    vm_metadata: 'gce_metadata',
  },
  'cloud-role': {
    allow_vm_inference: 'allow_gce_inference',
  },
  'snapshot-config': {
    cloudone_bucket: 'aws_s3_bucket',
    cloudone_region: 'aws_s3_region',
    cloudone_access_key_id: 'aws_access_key_id',
    cloudone_secret_access_key: 'aws_secret_access_key',
    cloudone_session_token: 'aws_session_token',
    cloudone_endpoint: 'aws_s3_endpoint',
    cloudone_disable_tls: 'aws_s3_disable_tls',
    cloudone_force_path_style: 'aws_s3_force_path_style',
    cloudone_enable_kms: 'aws_s3_enable_kms',
    cloudone_server_side_encryption: 'aws_s3_server_side_encryption',
    cloudone_kms_key: 'aws_s3_kms_key',
    cloudtwo_bucket: 'google_gcs_bucket',
    cloudtwo_service_account_key: 'google_service_account_key',
    cloudtwo_endpoint: 'google_endpoint',
    cloudtwo_disable_tls: 'google_disable_tls',
    cloudthree_container_name: 'azure_container_name',
    cloudthree_account_name: 'azure_account_name',
    cloudthree_account_key: 'azure_account_key',
    cloudthree_blob_environment: 'azure_blob_environment',
    cloudthree_endpoint: 'azure_endpoint',
    // Vault >= 1.18 only; not in the seed, renamed so a read of them never leaks Vault's names.
    cloudthree_auth_mode: 'azure_auth_mode',
    cloudthree_client_id: 'azure_client_id',
  },
  // Status fields are spelled the same (snapshot-auto.md 0.1: "all status field names").
  'snapshot-status': {},
};

/** Enum values that differ, per shape and field: keyward value -> Vault value. */
export const FIELD_VALUES: Readonly<Record<Shape, Readonly<Record<string, Readonly<Record<string, string>>>>>> = {
  'cloud-config': {},
  'cloud-role': {
    type: { iam: 'iam', vm: 'gce' },
  },
  'snapshot-config': {
    storage_type: { local: 'local', 'cloudone-store': 'aws-s3', 'cloudtwo-store': 'google-gcs', 'cloudthree-store': 'azure-blob' },
  },
  'snapshot-status': {},
};

/** Auth method types in sys/auth: keyward type -> Vault type. Other types pass through. */
export const MOUNT_TYPES: Readonly<Record<string, string>> = { cloud: 'gcp' };

/**
 * Secret fields, in Vault's names, that a read may return in clear: Vault's snapshot config read
 * returns the store credentials as written (hashicorp/vault#10971, "config read shows full cloud
 * credentials"), and a cloud config never should but is redacted too for safety. They are dropped
 * on read before anything else sees the data.
 */
export const SECRETS_ON_READ: Readonly<Record<Shape, readonly string[]>> = {
  'cloud-config': ['credentials', 'private_key'],
  'cloud-role': [],
  'snapshot-config': ['aws_secret_access_key', 'aws_session_token', 'google_service_account_key', 'azure_account_key', 'azure_client_secret'],
  'snapshot-status': [],
};

/**
 * Vault's wording in the auth method's error texts -> keyward's (cloud-auth.md: "error texts say
 * 'VM' where Vault says 'GCE'"): e.g. `invalid GCE alias type`, `failed to parse gce metadata`,
 * `Got GCE token but IAM role …`. Applied to whole bare words only (see the translator): never to a
 * part of a name such as `gce-prod-1`, and never inside a quoted string.
 */
export const ERROR_WORDS: Readonly<Record<string, string>> = { GCE: 'VM', gce: 'vm' };
