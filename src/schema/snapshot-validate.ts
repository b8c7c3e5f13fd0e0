// Pure validation and canonical forms of snapshot configurations: the write rules (all problems
// reported together, merge-on-update), the redacted read form and the reconciler's canonical form.

import { posix } from 'node:path';
import { ApiError } from './errors';
import { FieldProblemsError, type FieldProblem } from './field-problems';
import {
  CLOUDTHREE_AUTH_MODES,
  DEFAULT_FILE_PREFIX,
  STORAGE_TYPES,
  fieldsForStorageType,
  isStorageType,
  snapshotConfigFieldShape,
  snapshotFieldSpec,
  type SnapshotConfig,
  type SnapshotConfigRead,
  type StorageType,
} from './snapshot-config';

export const BLOB_ENVIRONMENTS: Record<string, string> = {
  AZUREPUBLICCLOUD: 'blob.core.windows.net',
  AZURECHINACLOUD: 'blob.core.chinacloudapi.cn',
  AZUREGERMANCLOUD: 'blob.core.cloudapi.de',
  AZUREUSGOVERNMENTCLOUD: 'blob.core.usgovcloudapi.net',
};

export interface SnapshotWriteOptions {
  /** The stored config when this write is an update (fields omitted keep their stored value). */
  existing?: SnapshotConfig;
  /** Skip "required" checks on secret fields (the reconciler's desired state carries no secrets). */
  secretsOptional?: boolean;
  /** Add the embedded engine's own rules (engineOnlySnapshotProblems), reported with the others. */
  engineRules?: boolean;
}

export interface SnapshotWriteResult {
  config: SnapshotConfig;
  /** Body keys that are not snapshot fields at all (the caller warns, like Vault's framework). */
  unknown: string[];
}

function show(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

const TYPE_LIST = STORAGE_TYPES.join(', ');

/** The longest interval the embedded engine takes: one year. Vault sets no cap; beyond it a schedule
 * is a mistake, and the engine's next-run time must stay within the range dates can represent. */
export const MAX_SNAPSHOT_INTERVAL_SECONDS = 365 * 24 * 3600;

/** Problems with the field each is about; `push(field, message, related?)`. */
class Problems {
  readonly list: FieldProblem[] = [];
  push(field: string, message: string, related?: string[]): void {
    this.list.push(related ? { field, message, related } : { field, message });
  }
  get length(): number {
    return this.list.length;
  }
  error(): FieldProblemsError {
    return new FieldProblemsError(this.list);
  }
}

/**
 * Validates a create/update body. Throws one ApiError (400) listing every problem: coercion
 * failures, fields of another storage type, missing required fields, cross-field rules. It is a
 * FieldProblemsError, so callers can tell which field each message is about.
 */
export function validateSnapshotConfigWrite(body: Record<string, unknown>, opts: SnapshotWriteOptions = {}): SnapshotWriteResult {
  const problems = new Problems();
  const unknown: string[] = [];
  const failed = new Set<string>();
  const given: Record<string, string | number | boolean> = {};
  for (const [name, raw] of Object.entries(body)) {
    const spec = snapshotFieldSpec(name);
    if (!spec) {
      unknown.push(name);
      continue;
    }
    const r = snapshotConfigFieldShape[name].safeParse(raw);
    if (r.success) {
      given[name] = r.data as string | number | boolean;
      continue;
    }
    failed.add(name);
    if (name === 'interval') {
      problems.push(name, 'interval must be a positive number of seconds or a duration string');
    } else {
      const reason = r.error.issues.map((i) => i.message).join('; ');
      // A secret's value never goes into an error message.
      const input = spec.secret ? '(sensitive value)' : show(raw);
      problems.push(name, `error converting input ${input} for field "${name}": ${reason}`);
    }
  }

  const existing = opts.existing;
  let type: StorageType | undefined;
  if ('storage_type' in given) {
    if (isStorageType(given.storage_type)) type = given.storage_type;
    else problems.push('storage_type', `storage_type must be one of ${TYPE_LIST}`);
  } else if (existing) {
    type = existing.storage_type;
  } else if (!('storage_type' in body)) {
    problems.push('storage_type', `storage_type must be one of ${TYPE_LIST}`);
  }
  if (existing && type && type !== existing.storage_type) {
    problems.push('storage_type', 'storage_type cannot be changed; delete and recreate the configuration');
    type = undefined;
  }
  if (!type) throw problems.error();

  for (const name of Object.keys(given)) {
    const owner = snapshotFieldSpec(name)!.owner;
    if (owner !== 'common' && owner !== type) problems.push(name, `${name} is not valid for storage_type=${type} (it belongs to ${owner})`, ['storage_type']);
  }

  const merged: Record<string, string | number | boolean> = {};
  for (const spec of fieldsForStorageType(type)) {
    const v = spec.name in given ? given[spec.name] : existing ? existing[spec.name] : undefined;
    if (v !== undefined) merged[spec.name] = v;
    else if (spec.default !== undefined) merged[spec.name] = spec.default;
  }
  merged.storage_type = type;
  if (merged.file_prefix === '') merged.file_prefix = DEFAULT_FILE_PREFIX;
  if (merged.cloudthree_auth_mode === '') merged.cloudthree_auth_mode = 'shared';

  checkRules(type, merged, failed, problems, opts.secretsOptional ?? false);
  if (opts.engineRules) for (const [field, message] of engineOnlySnapshotProblems(merged as SnapshotConfig, failed)) problems.push(field, message);
  if (problems.length > 0) throw problems.error();
  return { config: merged as SnapshotConfig, unknown: unknown.sort() };
}

function checkRules(type: StorageType, c: Record<string, string | number | boolean>, failed: Set<string>, problems: Problems, secretsOptional: boolean): void {
  if (!failed.has('interval')) {
    if (c.interval === undefined) problems.push('interval', 'interval is required');
    else if (!(typeof c.interval === 'number' && c.interval > 0)) problems.push('interval', 'interval must be a positive number of seconds or a duration string');
  }
  if (!failed.has('retain') && (typeof c.retain !== 'number' || c.retain < 1)) problems.push('retain', 'retain must be a positive integer (at least 1)');
  for (const spec of fieldsForStorageType(type)) {
    if (!spec.required || failed.has(spec.name) || spec.name === 'interval' || spec.name === 'storage_type') continue;
    if (spec.secret && secretsOptional) continue;
    const v = c[spec.name];
    const missing = v === undefined || v === '' || (spec.kind === 'int' && (v as number) <= 0);
    if (missing) {
      problems.push(
        spec.name,
        spec.kind === 'int' ? `${spec.name} is required for storage_type=${type} (a positive number of bytes)` : `${spec.name} is required for storage_type=${type}`,
      );
    }
  }
  if (c.autoload_enabled === true && type === 'local') problems.push('autoload_enabled', 'autoload_enabled is not supported for storage_type=local');

  if (type === 'cloudone-store') {
    if (c.cloudone_enable_kms === true && c.cloudone_server_side_encryption === true) {
      problems.push('cloudone_enable_kms', 'cloudone_enable_kms and cloudone_server_side_encryption are mutually exclusive', ['cloudone_server_side_encryption']);
    }
    const hasId = c.cloudone_access_key_id !== '';
    const hasSecret = c.cloudone_secret_access_key !== '';
    if (hasId !== hasSecret && !(secretsOptional && hasId)) {
      problems.push(hasId ? 'cloudone_secret_access_key' : 'cloudone_access_key_id', 'cloudone_access_key_id and cloudone_secret_access_key must be set together', [
        hasId ? 'cloudone_access_key_id' : 'cloudone_secret_access_key',
      ]);
    }
  }
  if (type === 'cloudtwo-store') {
    const key = String(c.cloudtwo_service_account_key ?? '');
    if (key !== '' && !isJsonObject(key)) problems.push('cloudtwo_service_account_key', 'cloudtwo_service_account_key must be a JSON object');
  }
  if (type === 'cloudthree-store') {
    const mode = String(c.cloudthree_auth_mode);
    if (!(CLOUDTHREE_AUTH_MODES as readonly string[]).includes(mode)) {
      problems.push('cloudthree_auth_mode', `cloudthree_auth_mode must be one of ${CLOUDTHREE_AUTH_MODES.join(', ')}, got ${JSON.stringify(mode)}`);
    } else if (mode !== 'environment' && !c.cloudthree_account_name) {
      problems.push('cloudthree_account_name', `cloudthree_account_name is required for cloudthree_auth_mode=${mode}`);
    }
    if (mode === 'shared' && !secretsOptional && !c.cloudthree_account_key) {
      problems.push('cloudthree_account_key', 'cloudthree_account_key is required for cloudthree_auth_mode=shared', ['cloudthree_auth_mode']);
    } else if (mode === 'managed' && !c.cloudthree_client_id) {
      problems.push('cloudthree_client_id', 'cloudthree_client_id is required for cloudthree_auth_mode=managed', ['cloudthree_auth_mode']);
    }
    if (mode !== 'managed' && c.cloudthree_client_id) problems.push('cloudthree_client_id', `cloudthree_client_id is only used with cloudthree_auth_mode=managed (got ${mode})`);
  }
}

/**
 * Rules of keyward's embedded engine only, on a validated config: hardening beyond what Vault
 * accepts. Vault takes these values, so the constructs, the manifest and the provider do too; the
 * engine refuses them, and its message says so.
 */
export function engineOnlySnapshotProblems(c: SnapshotConfig, failed: ReadonlySet<string> = new Set()): Array<[field: string, message: string]> {
  const problems: Array<[string, string]> = [];
  const note = " (a rule of keyward's embedded engine; Vault accepts it)";
  const type = c.storage_type;
  if (!failed.has('interval') && c.interval > MAX_SNAPSHOT_INTERVAL_SECONDS) {
    problems.push(['interval', `interval must be at most ${MAX_SNAPSHOT_INTERVAL_SECONDS} seconds (8760h, one year), got ${c.interval}${note}`]);
  }
  const pathPrefix = String(c.path_prefix ?? '');
  if (pathPrefix !== '' && (type === 'cloudtwo-store' || type === 'cloudthree-store') && !pathPrefix.endsWith('/')) {
    problems.push(['path_prefix', `path_prefix must end with "/" for storage_type=${type} (got ${JSON.stringify(pathPrefix)})${note}`]);
  }
  if (String(c.file_prefix).includes('/')) problems.push(['file_prefix', `file_prefix must not contain "/" (put directories in path_prefix)${note}`]);
  if (type === 'cloudone-store' && String(c.cloudone_bucket).includes('/')) {
    problems.push(['cloudone_bucket', `cloudone_bucket must be a bare bucket name (put key segments in path_prefix)${note}`]);
  }
  if (type === 'cloudtwo-store' && String(c.cloudtwo_bucket).includes('/')) {
    problems.push(['cloudtwo_bucket', `cloudtwo_bucket must be a bare bucket name (put object prefixes in path_prefix)${note}`]);
  }
  if (type === 'cloudthree-store') {
    const env = String(c.cloudthree_blob_environment ?? '');
    if (env !== '' && !(env.toUpperCase() in BLOB_ENVIRONMENTS)) {
      problems.push(['cloudthree_blob_environment', `cloudthree_blob_environment must be one of ${Object.keys(BLOB_ENVIRONMENTS).join(', ')} (case-insensitive)${note}`]);
    }
  }
  return problems;
}

function isJsonObject(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** The read form: every non-secret field of the config's type; secret keys omitted entirely. */
export function redactSnapshotConfig(config: SnapshotConfig): SnapshotConfigRead {
  const out: SnapshotConfigRead = {};
  for (const spec of fieldsForStorageType(config.storage_type)) {
    if (spec.secret) continue;
    const v = config[spec.name] ?? spec.default;
    if (v !== undefined) out[spec.name] = v;
  }
  return out;
}

/**
 * The canonical form a reconciler compares: a desired body (interval as "24h" or 86400, defaults
 * omitted, no secrets) becomes exactly what a read of the applied config returns.
 */
export function canonicalSnapshotConfig(body: Record<string, unknown>): SnapshotConfigRead {
  return redactSnapshotConfig(validateSnapshotConfigWrite(body, { secretsOptional: true }).config);
}

/** A live read normalized the same way: defaults of its type filled in, keys of no field dropped. */
export function normalizeSnapshotConfigRead(data: Record<string, unknown>): SnapshotConfigRead {
  const type = data.storage_type;
  if (!isStorageType(type)) throw new ApiError('invalid_request', [`storage_type must be one of ${TYPE_LIST}`]);
  const out: SnapshotConfigRead = {};
  for (const spec of fieldsForStorageType(type)) {
    if (spec.secret) continue;
    const raw = data[spec.name];
    // Vault reads an unset google_endpoint back as the boolean false (terraform-provider-vault#1173):
    // a string field read as false is unset. An enum read as "" is unset too.
    if (raw === undefined || raw === null || (spec.kind === 'string' && (raw === false || (raw === '' && spec.default !== '')))) {
      if (spec.default !== undefined) out[spec.name] = spec.default;
      continue;
    }
    const r = snapshotConfigFieldShape[spec.name].safeParse(raw);
    if (r.success) out[spec.name] = r.data as string | number | boolean;
  }
  if (out.file_prefix === '') out.file_prefix = DEFAULT_FILE_PREFIX;
  return out;
}

/**
 * Identifies where a config's snapshots live, for the collision rule: two configs with the same
 * location would rotate (delete) each other's files.
 */
export function snapshotLocationKey(c: SnapshotConfig): string {
  // Compared cleaned, as the files land: a directory path resolves "." and "//", and Vault joins
  // object keys with Go's path.Join, which cleans them the same way ("a//b/./c" is "a/b/c").
  const raw = String(c.path_prefix);
  const cleaned = raw === '' ? '' : posix.normalize(raw);
  const prefix = cleaned === '.' || cleaned === './' ? '' : cleaned.replace(/\/+$/, '').replace(/^\.\//, '');
  const where =
    c.storage_type === 'local'
      ? ''
      : c.storage_type === 'cloudone-store'
        ? `${c.cloudone_endpoint}|${c.cloudone_bucket}`
        : c.storage_type === 'cloudtwo-store'
          ? `${c.cloudtwo_endpoint}|${c.cloudtwo_bucket}`
          : `${c.cloudthree_endpoint}|${c.cloudthree_account_name}|${c.cloudthree_container_name}`;
  return `${c.storage_type}|${where}|${prefix}|${c.file_prefix}`;
}
