// Automated snapshot configs as Vault Enterprise serves them (api-docs/system/storage/
// raftautosnapshots.mdx): Vault's storage types and field names, unknown parameters ignored with a
// warning, and reads that return every field of the type, secrets in clear (hashicorp/vault#10971).

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

export type SnapshotConfig = Record<string, unknown>;

export function snapshotConfig(ctx: Ctx, configs: Map<string, SnapshotConfig>, name: string): Reply {
  const existing = configs.get(name);
  if (ctx.method === 'read') return existing ? envelope({ ...existing }) : errors(404);
  if (ctx.method === 'delete') {
    configs.delete(name);
    return noContent;
  }
  if (ctx.method !== 'update') return errors(405, 'unsupported operation');
  const b = ctx.body;
  const type = String(b.storage_type ?? existing?.storage_type ?? '');
  const spec = TYPES[type];
  if (!spec) {
    ctx.problem(`snapshot ${name}: storage_type ${JSON.stringify(type)}`);
    return errors(400, `unknown storage_type "${type}"`);
  }
  if (existing && b.storage_type !== undefined && b.storage_type !== existing.storage_type) return errors(400, 'storage_type cannot be changed');
  const warnings = ignoredWarning(ctx, [...COMMON, ...Object.keys(spec.fields)]);
  const c: SnapshotConfig = existing ?? { storage_type: type, retain: 1, file_prefix: 'vault-snapshot', ...defaults(spec.fields) };
  if (b.interval !== undefined) c.interval = asSeconds(b.interval);
  if (b.retain !== undefined) c.retain = asInt(b.retain);
  for (const k of ['path_prefix', 'file_prefix']) if (b[k] !== undefined) c[k] = String(b[k]);
  for (const [k, kind] of Object.entries(spec.fields)) {
    if (b[k] === undefined) continue;
    c[k] = kind === 'bool' ? asBool(b[k]) : kind === 'int' ? asInt(b[k]) : String(b[k]);
  }
  for (const k of ['interval', 'path_prefix', ...spec.required]) {
    if (c[k] === undefined || c[k] === '' || c[k] === 0) return errors(400, `${k} is required for storage_type=${type}`);
  }
  configs.set(name, c);
  return warnings ? envelope(null, warnings) : noContent;
}

function defaults(fields: Record<string, 'string' | 'bool' | 'int'>): SnapshotConfig {
  return Object.fromEntries(Object.entries(fields).map(([k, kind]) => [k, kind === 'bool' ? false : kind === 'int' ? undefined : '']).filter(([, v]) => v !== undefined));
}

/** The status fields of the API docs' sample (RFC 3339 with the server's offset, a file:// or https:// URL). */
export interface SnapshotRun {
  last_snapshot_start: string;
  last_snapshot_end: string;
  last_snapshot_error: string;
  last_snapshot_url: string;
  snapshot_start: string;
  snapshot_url: string;
  /** Newer Vault versions only. */
  next_snapshot_start?: string;
}

/** A config's status: its last run when one was recorded, else the same fields blank. */
export function snapshotStatus(configs: Map<string, SnapshotConfig>, runs: Map<string, SnapshotRun>, name: string): Reply {
  if (!configs.has(name)) return errors(400, `no snapshot config named "${name}"`);
  return envelope({ last_snapshot_end: '', last_snapshot_error: '', last_snapshot_start: '', last_snapshot_url: '', snapshot_start: '', snapshot_url: '', ...runs.get(name) });
}
