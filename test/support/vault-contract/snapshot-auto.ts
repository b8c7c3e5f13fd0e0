// Automated snapshot configs as Vault Enterprise serves them (api-docs/system/storage/
// raftautosnapshots.mdx, 1.21): Vault's storage types and field names, unknown parameters ignored
// with a warning, and reads that return every field of the type, secrets in clear (hashicorp/vault#10971).
// An update REPLACES the stored config by default: Vault's docs do not say it merges, so the client
// must not rely on it (an omitted field is reset, an omitted secret is gone). `merge` is the option.

import { asBool, asInt, asSeconds, envelope, errors, ignoredWarning, noContent, type Ctx, type Reply } from './http';

const COMMON = ['interval', 'retain', 'path_prefix', 'file_prefix', 'storage_type', 'autoload_enabled'];

/** Fields per storage type with their kind; required ones as the docs mark them. */
const TYPES: Record<string, { fields: Record<string, 'string' | 'bool' | 'int'>; required: string[] }> = {
  local: { fields: { local_max_space: 'int' }, required: ['local_max_space'] },
  'aws-s3': {
    fields: {
      aws_s3_bucket: 'string',
      aws_s3_region: 'string',
      aws_access_key_id: 'string',
      aws_secret_access_key: 'string',
      aws_session_token: 'string',
      aws_s3_endpoint: 'string',
      aws_s3_disable_tls: 'bool',
      aws_s3_force_path_style: 'bool',
      aws_s3_enable_kms: 'bool',
      aws_s3_kms_key: 'string',
      aws_s3_server_side_encryption: 'bool',
    },
    required: ['aws_s3_bucket', 'aws_s3_region'],
  },
  'google-gcs': {
    fields: { google_gcs_bucket: 'string', google_service_account_key: 'string', google_endpoint: 'string', google_disable_tls: 'bool' },
    required: ['google_gcs_bucket'],
  },
  'azure-blob': {
    fields: {
      azure_container_name: 'string',
      azure_account_name: 'string',
      azure_account_key: 'string',
      azure_blob_environment: 'string',
      azure_endpoint: 'string',
      azure_auth_mode: 'string',
      azure_client_id: 'string',
    },
    required: ['azure_container_name'],
  },
};

const AZURE_MODES = ['shared', 'managed', 'environment'];

export type SnapshotConfig = Record<string, unknown>;

export interface SnapshotOptions {
  /** 'replace' (default): an update stores exactly the fields sent; 'merge': omitted fields are kept. */
  update: 'replace' | 'merge';
  /**
   * Managed identity without `azure_client_id`: refused by default (terraform-provider-vault's
   * negative acceptance test expects "azure_client_id is required"); the API docs call it optional.
   */
  azureManagedNeedsClientId: boolean;
  /**
   * An azure-blob write must carry azure_auth_mode (default true): terraform-provider-vault's docs
   * say "Required by Vault API"; the API docs are silent, so the harsh answer is the contract's.
   */
  azureAuthModeRequired: boolean;
  /**
   * Harsh mode: a write turning autoload off is processed this long after it arrives, so a client
   * that sends the disable and the enable of an autoload move together sees the enable land first.
   */
  delayAutoloadDisableMs?: number;
}

/** The read shape: unset `google_endpoint` comes back as the boolean false (TF-vault #1173). */
function readShape(c: SnapshotConfig): Record<string, unknown> {
  const out = { ...c };
  if (out.storage_type === 'google-gcs' && (out.google_endpoint === '' || out.google_endpoint === undefined)) out.google_endpoint = false;
  return out;
}

export function snapshotConfig(ctx: Ctx, configs: Map<string, SnapshotConfig>, name: string, o: SnapshotOptions): Reply {
  const existing = configs.get(name);
  if (ctx.method === 'read') return existing ? envelope(readShape(existing)) : errors(404);
  if (ctx.method === 'delete') {
    configs.delete(name);
    return noContent;
  }
  if (ctx.method !== 'update') return errors(405, 'unsupported operation');
  const b = ctx.body;
  // The docs mark storage_type required; a replacing server cannot take it from the stored config.
  const type = String(b.storage_type ?? (o.update === 'merge' ? (existing?.storage_type ?? '') : ''));
  if (type === '') return errors(400, 'storage_type is required');
  const spec = TYPES[type];
  if (!spec) {
    ctx.problem(`snapshot ${name}: storage_type ${JSON.stringify(type)}`);
    return errors(400, `unknown storage_type "${type}"`);
  }
  if (existing && type !== existing.storage_type) return errors(400, 'storage_type cannot be changed');
  const warnings = ignoredWarning(ctx, [...COMMON, ...Object.keys(spec.fields)]);
  const fresh = (): SnapshotConfig => ({ storage_type: type, retain: 1, file_prefix: 'vault-snapshot', autoload_enabled: false, ...defaults(spec.fields) });
  const c: SnapshotConfig = o.update === 'merge' && existing ? { ...existing } : fresh();
  if (b.interval !== undefined) c.interval = asSeconds(b.interval);
  if (b.retain !== undefined) c.retain = asInt(b.retain);
  if (b.autoload_enabled !== undefined) c.autoload_enabled = asBool(b.autoload_enabled);
  for (const k of ['path_prefix', 'file_prefix']) if (b[k] !== undefined) c[k] = String(b[k]);
  for (const [k, kind] of Object.entries(spec.fields)) {
    if (b[k] === undefined) continue;
    c[k] = kind === 'bool' ? asBool(b[k]) : kind === 'int' ? asInt(b[k]) : String(b[k]);
  }
  for (const k of ['interval', 'path_prefix', ...spec.required]) {
    if (c[k] === undefined || c[k] === '' || c[k] === 0) return errors(400, `${k} is required for storage_type=${type}`);
  }
  if (type === 'azure-blob' && o.azureAuthModeRequired && (b.azure_auth_mode === undefined || b.azure_auth_mode === ''))
    return errors(400, 'azure_auth_mode is required for storage_type=azure-blob');
  const bad = type === 'azure-blob' ? azureAuth(c, o) : undefined;
  if (bad) return bad;
  if (c.autoload_enabled === true) {
    if (type === 'local') return errors(400, 'autoload_enabled is not supported for storage_type=local');
    const other = [...configs].find(([n, x]) => n !== name && x.autoload_enabled === true);
    if (other) return errors(400, `autoload is already enabled on snapshot config "${other[0]}"; only one config may have autoload_enabled`);
  }
  configs.set(name, c);
  return warnings ? envelope(null, warnings) : noContent;
}

/** Vault 1.18's Azure credential modes (TF-vault's acceptance tests name the messages). */
function azureAuth(c: SnapshotConfig, o: SnapshotOptions): Reply | undefined {
  const mode = c.azure_auth_mode === '' ? 'shared' : String(c.azure_auth_mode);
  if (!AZURE_MODES.includes(mode)) return errors(400, `azure_auth_mode must be one of ${AZURE_MODES.join(', ')}; got "${mode}"`);
  if (mode !== 'environment' && !c.azure_account_name) return errors(400, `azure_account_name is required for azure_auth_mode=${mode}`);
  if (mode === 'shared') {
    if (!c.azure_account_key) return errors(400, 'azure_account_key is required for azure_auth_mode=shared');
  }
  if (mode === 'managed' && o.azureManagedNeedsClientId && !c.azure_client_id) return errors(400, 'azure_client_id is required for azure_auth_mode=managed');
  return undefined;
}

function defaults(fields: Record<string, 'string' | 'bool' | 'int'>): SnapshotConfig {
  return Object.fromEntries(
    Object.entries(fields)
      .map(([k, kind]) => [k, kind === 'bool' ? false : kind === 'int' ? undefined : ''])
      .filter(([, v]) => v !== undefined),
  );
}

/**
 * The status fields of the 1.21 API docs (RFC 3339 with the server's offset, a file:// or https://
 * URL). Vault sends no `consecutive_errors`.
 */
export interface SnapshotRun {
  last_snapshot_start: string;
  last_snapshot_end: string;
  last_snapshot_error: string;
  last_snapshot_url: string;
  snapshot_start: string;
  snapshot_url: string;
  /** Newer Vault versions only. */
  next_snapshot_start?: string;
  /** With autoload_enabled (1.21). */
  loaded_snapshot_id?: string;
  loaded_snapshot_status?: string;
  loaded_snapshot_expires_at?: string;
  loading_error?: string;
}

/** A config's status: its last run when one was recorded, else the same fields blank. */
export function snapshotStatus(configs: Map<string, SnapshotConfig>, runs: Map<string, SnapshotRun>, name: string): Reply {
  const c = configs.get(name);
  if (!c) return errors(400, `no snapshot config named "${name}"`);
  const loaded = c.autoload_enabled === true ? { loaded_snapshot_id: '', loaded_snapshot_status: '', loaded_snapshot_expires_at: '', loading_error: '' } : {};
  return envelope({
    last_snapshot_end: '',
    last_snapshot_error: '',
    last_snapshot_start: '',
    last_snapshot_url: '',
    snapshot_start: '',
    snapshot_url: '',
    ...loaded,
    ...runs.get(name),
  });
}
