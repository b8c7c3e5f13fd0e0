// The `cloud` auth method config's field table as the desired-state layers see it (manifest,
// Terraform provider, dialect renames, docs): kind, default, Vault's spelling and a description.
// Plain data without zod; the engine's write rules are in cloud-config.ts.

export type ConfigFieldKind = 'string' | 'list' | 'map' | 'duration' | 'bool';

export interface CloudConfigFieldSpec {
  name: string;
  kind: ConfigFieldKind;
  /** The value a read shows when the field was never written. */
  default: string | number | boolean | readonly string[] | Readonly<Record<string, string>>;
  /** Never read back; sent from an environment variable or a write-only attribute. */
  secret?: boolean;
  /** Allowed values of a string field. */
  values?: readonly string[];
  /** Vault's name for the field (absent: spelled the same). */
  vault?: string;
  description: string;
}

export const IAM_METADATA_KEYS = ['project_id', 'role', 'service_account_id', 'service_account_email'] as const;
export const VM_METADATA_KEYS = [
  'instance_creation_timestamp',
  'instance_id',
  'instance_name',
  'project_id',
  'project_number',
  'role',
  'service_account_id',
  'service_account_email',
  'zone',
] as const;

/** Vault's default for identity_token_ttl (pluginidentityutil): one hour. */
export const IDENTITY_TOKEN_TTL_DEFAULT = 3600;

export const CLOUD_CONFIG_FIELDS: readonly CloudConfigFieldSpec[] = [
  {
    name: 'credentials',
    kind: 'string',
    default: '',
    secret: true,
    description: "Service account key JSON the method uses for the identity provider's APIs; empty = ambient credentials. Not with identity_token_audience.",
  },
  {
    name: 'iam_alias',
    kind: 'string',
    default: 'role_id',
    values: ['role_id', 'unique_id'],
    description: "Entity alias of iam logins: `role_id` (default) or `unique_id` (the service account's id).",
  },
  { name: 'iam_metadata', kind: 'list', default: [...IAM_METADATA_KEYS], description: 'Metadata keys attached to iam logins; `["default"]` = the default keys, `[]` = none.' },
  {
    name: 'vm_alias',
    kind: 'string',
    default: 'role_id',
    values: ['role_id', 'instance_id'],
    vault: 'gce_alias',
    description: 'Entity alias of vm logins: `role_id` (default) or `instance_id`.',
  },
  {
    name: 'vm_metadata',
    kind: 'list',
    default: [...VM_METADATA_KEYS],
    vault: 'gce_metadata',
    description: 'Metadata keys attached to vm logins; `["default"]` = the default keys, `[]` = none.',
  },
  {
    name: 'custom_endpoint',
    kind: 'map',
    default: {},
    description:
      "Base URLs replacing the identity provider's, by key: `api`, `iam`, `crm`, `compute`; on keyward's engine also `sts` and `iamcredentials` (workload identity federation; Vault refuses them).",
  },
  {
    name: 'service_account_email',
    kind: 'string',
    default: '',
    description: 'Service account impersonated through workload identity federation (WIF); required with identity_token_audience.',
  },
  {
    name: 'identity_token_audience',
    kind: 'string',
    default: '',
    description: 'Audience of the plugin identity token exchanged for cloud credentials (WIF); setting it excludes credentials.',
  },
  // Stored only when sent (pluginidentityutil reads it with GetOk): unset reads 0, and the issuer
  // then uses IDENTITY_TOKEN_TTL_DEFAULT. So 0 is what "undeclared" means, and a stored 0 reads as 0.
  {
    name: 'identity_token_ttl',
    kind: 'duration',
    default: 0,
    description: "Lifetime of the plugin identity token (WIF). Unset or 0: the server's default (1h); a declared value is written as given, 1h included.",
  },
  { name: 'rotation_period', kind: 'duration', default: 0, description: 'Rotate the root credentials this often; 0 = no periodic rotation. Not with rotation_schedule.' },
  { name: 'rotation_schedule', kind: 'string', default: '', description: 'Cron schedule for rotating the root credentials, such as `0 3 * * SAT`. Not with rotation_period.' },
  { name: 'rotation_window', kind: 'duration', default: 0, description: 'How long after a scheduled time a rotation may still start; needs rotation_schedule.' },
  { name: 'disable_automated_rotation', kind: 'bool', default: false, description: 'Pause automated rotation without removing its settings.' },
];

/** The one secret field: sent from an environment variable or a write-only attribute, never read back. */
export const CONFIG_SECRET = 'credentials';

/** keyward name -> Vault name, for the config fields Vault spells differently. */
export const CLOUD_CONFIG_VAULT_NAMES: Readonly<Record<string, string>> = Object.fromEntries(CLOUD_CONFIG_FIELDS.filter((f) => f.vault).map((f) => [f.name, f.vault!]));

/** Credentials Vault rotates: once rotation is configured, the declared key is only the initial one. */
export function rotationConfigured(fields: Readonly<Record<string, unknown>>): boolean {
  return (typeof fields.rotation_period === 'number' && fields.rotation_period > 0) || (typeof fields.rotation_schedule === 'string' && fields.rotation_schedule !== '');
}

/**
 * Vault's cross-field rules of the config (path_config.go, pluginidentityutil, automatedrotationutil)
 * in Vault's words and order, on a config's fields; `hasCredentials` says whether credentials are set.
 */
export function cloudConfigProblems(f: Readonly<Record<string, unknown>>, hasCredentials: boolean): string[] {
  const out: string[] = [];
  const period = typeof f.rotation_period === 'number' && f.rotation_period > 0;
  if (f.rotation_schedule && period) out.push('mutually exclusive fields rotation_schedule and rotation_period were both specified; only one of them can be provided');
  if (typeof f.rotation_window === 'number' && f.rotation_window > 0 && !f.rotation_schedule) out.push('cannot use rotation_window without rotation_schedule');
  if (f.identity_token_audience && hasCredentials) out.push("only one of 'credentials' or 'identity_token_audience' can be set");
  if (f.identity_token_audience && !f.service_account_email) out.push("missing required 'service_account_email' when 'identity_token_audience' is set");
  return out;
}
