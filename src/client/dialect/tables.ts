// The rename tables between keyward's names (the seed) and Vault's (Vault Enterprise, OpenBao). Field
// renames come from the field tables in src/schema (each field carries its Vault name); enum values,
// mount types and error words are here. Sources: the rename tables at the top of
// shared/reference/cloud-auth.md and snapshot-auto.md (section 0.1), checked against Vault's API
// docs (website/content/api-docs/auth/gcp.mdx, .../system/storage/raftautosnapshots.mdx).

import { CLOUD_CONFIG_VAULT_NAMES } from '../../schema/cloud-config-fields';
import { ROLE_VAULT_NAMES } from '../../schema/cloud-role-fields';
import { SNAPSHOT_VAULT_NAMES } from '../../schema/snapshot-fields';

/** The shapes a request body or read response can have. */
export type Shape = 'cloud-config' | 'cloud-role' | 'snapshot-config' | 'snapshot-status';

/** keyward name -> Vault name. Fields not listed are spelled the same in both dialects. */
export const FIELD_NAMES: Readonly<Record<Shape, Readonly<Record<string, string>>>> = {
  'cloud-config': CLOUD_CONFIG_VAULT_NAMES,
  'cloud-role': ROLE_VAULT_NAMES,
  'snapshot-config': SNAPSHOT_VAULT_NAMES,
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
