// Wire shape of the `cloud` auth method's config (auth/<mount>/config): field table, zod field
// schemas, metadata-list and custom-endpoint rules, credentials validation and the read shape.
// Pure data + functions so the engine, the reconciler and the constructs share one definition.

import { createPrivateKey } from 'node:crypto';
import { IAM_METADATA_KEYS, VM_METADATA_KEYS } from './cloud-config-fields';
import { field } from './fields';
import { ApiError } from './errors';
import { applyKeylessWrite, keylessReadShape, keylessWriteShape, type KeylessConfig, type KeylessWrite } from './cloud-config-keyless';

/** The metadata keys a login carries by default (the config field table holds the lists). */
export const IAM_METADATA_DEFAULT = IAM_METADATA_KEYS;
export const VM_METADATA_DEFAULT = VM_METADATA_KEYS;

export const IAM_ALIAS_VALUES = ['role_id', 'unique_id'] as const;
export const VM_ALIAS_VALUES = ['role_id', 'instance_id'] as const;
export type IamAlias = (typeof IAM_ALIAS_VALUES)[number];
export type VmAlias = (typeof VM_ALIAS_VALUES)[number];

/** Vault's four keys, then the engine's own two for workload identity federation (Vault's plugin
 * always calls Google's STS and IAM Credentials; the engine lets them point at an emulator). */
export const CUSTOM_ENDPOINT_KEYS = ['api', 'iam', 'crm', 'compute', 'sts', 'iamcredentials'] as const;
export type EndpointKey = (typeof CUSTOM_ENDPOINT_KEYS)[number];

/** Google's default base URLs; an override without a path gets the service's default path. */
export const DEFAULT_ENDPOINTS: Record<EndpointKey, string> = {
  api: 'https://www.googleapis.com',
  iam: 'https://iam.googleapis.com/',
  crm: 'https://cloudresourcemanager.googleapis.com/',
  compute: 'https://compute.googleapis.com/compute/v1/',
  sts: 'https://sts.googleapis.com/',
  iamcredentials: 'https://iamcredentials.googleapis.com/',
};

// The config's field table (kinds, defaults, descriptions, Vault's names) is cloud-config-fields.ts.

/** zod field schemas for parseFields on config writes (and the empty read query). */
export const configWriteShape = {
  credentials: field.secretString(),
  iam_alias: field.string(),
  iam_metadata: field.commaList(),
  vm_alias: field.string(),
  vm_metadata: field.commaList(),
  custom_endpoint: field.kvMap(),
  google_certs_endpoint: field.string(),
  ...keylessWriteShape,
};

/** The non-secret fields derived from a service-account key; the private key stays server-side. */
export interface CredentialsSummary {
  client_email: string;
  client_id: string;
  private_key_id: string;
  project_id: string;
}

export interface ServiceAccountKey extends CredentialsSummary {
  private_key: string;
  /** Where the key is exchanged for access tokens (Google's token endpoint unless the file says otherwise). */
  token_uri?: string;
}

const bad = (msg: string) => new ApiError('invalid_request', [msg]);

/**
 * Validates credentials JSON as a service-account key: JSON object, non-empty private_key_id,
 * client_email and a parseable PEM private_key. Errors never quote the key material.
 */
export function parseServiceAccountKey(text: string): ServiceAccountKey {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (e) {
    // The JSON parser's message may quote input; keep only the position info.
    const pos = /position \d+/.exec(String((e as Error).message));
    throw bad(`failed to read credentials: invalid JSON${pos ? ` at ${pos[0]}` : ''}`);
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    throw bad('failed to read credentials: expected a service-account key JSON object');
  }
  const o = obj as Record<string, unknown>;
  const str = (k: string) => (typeof o[k] === 'string' ? (o[k] as string) : typeof o[k] === 'number' ? String(o[k]) : '');
  if (o.type !== undefined && o.type !== 'service_account') {
    throw bad(`failed to read credentials: field "type" must be "service_account", got ${JSON.stringify(String(o.type))}`);
  }
  if (!str('private_key_id')) throw bad('missing private key in credentials: field "private_key_id" is empty');
  if (!str('private_key')) throw bad('missing private key in credentials: field "private_key" is empty');
  if (!str('client_email')) throw bad('failed to read credentials: field "client_email" is empty');
  try {
    createPrivateKey(str('private_key'));
  } catch {
    throw bad('failed to read credentials: field "private_key" is not a PEM-encoded private key');
  }
  return {
    client_email: str('client_email'),
    client_id: str('client_id'),
    private_key_id: str('private_key_id'),
    private_key: str('private_key'),
    project_id: str('project_id'),
    ...(str('token_uri') ? { token_uri: str('token_uri') } : {}),
  };
}

/**
 * Metadata list rule: null is the "default" marker; [] means no metadata; otherwise a sorted,
 * de-duplicated, lower-cased subset of the allowed keys.
 */
export function parseMetadataList(items: string[], which: 'iam' | 'vm'): string[] | null {
  const allowed: readonly string[] = which === 'iam' ? IAM_METADATA_DEFAULT : VM_METADATA_DEFAULT;
  const prefix = `failed to parse ${which} metadata: `;
  const cleaned = items.map((s) => s.trim().toLowerCase()).filter((s) => s !== '');
  if (cleaned.includes('default')) {
    if (cleaned.length === 1) return null;
    throw bad(`${prefix}[${cleaned.map((s) => JSON.stringify(s)).join(' ')}] contains default - default can't be used in combination with other fields`);
  }
  const unknown = cleaned.filter((s) => !allowed.includes(s));
  if (unknown.length > 0) {
    throw bad(`${prefix}${JSON.stringify(unknown.join(', '))} contains an unavailable field, please select from ${JSON.stringify(allowed.join(', '))}`);
  }
  return [...new Set(cleaned)].sort();
}

/** The effective metadata keys for a stored list (null = defaults, in canonical order). */
export function effectiveMetadata(stored: string[] | null | undefined, which: 'iam' | 'vm'): string[] {
  if (stored === null || stored === undefined) return [...(which === 'iam' ? IAM_METADATA_DEFAULT : VM_METADATA_DEFAULT)];
  return [...stored];
}

export function validateAlias(value: string, which: 'iam' | 'vm'): string {
  const allowed: readonly string[] = which === 'iam' ? IAM_ALIAS_VALUES : VM_ALIAS_VALUES;
  if (value === '' || allowed.includes(value)) return value;
  throw bad(`invalid ${which === 'iam' ? 'IAM' : 'VM'} alias type ${JSON.stringify(value)} for field "${which}_alias": must be one of: ${[...allowed].sort().join(', ')}`);
}

/**
 * Custom endpoint URL forms: `scheme://host[:port][/path]` or `host[:port][/path]` (https assumed).
 * A value without a path gets the service's default path. "" clears the override.
 */
export function validateEndpoint(key: string, value: string): string {
  if (!(CUSTOM_ENDPOINT_KEYS as readonly string[]).includes(key)) {
    throw bad(`invalid custom endpoint type ${JSON.stringify(key)}. Available types are: 'api', 'iam', 'crm', 'compute' (and on the embedded engine 'sts', 'iamcredentials')`);
  }
  const v = value.trim();
  if (v === '') return '';
  const withScheme = v.includes('://') ? v : `https://${v}`;
  let u: URL;
  try {
    u = new URL(withScheme);
  } catch {
    throw bad(`invalid custom_endpoint ${JSON.stringify(key)} value ${JSON.stringify(value)}: expected scheme://host[:port][/path]`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw bad(`invalid custom_endpoint ${JSON.stringify(key)} value ${JSON.stringify(value)}: scheme must be http or https`);
  }
  if (u.search || u.hash || u.username || u.password) {
    throw bad(`invalid custom_endpoint ${JSON.stringify(key)} value ${JSON.stringify(value)}: query, fragment and user info are not allowed`);
  }
  return v;
}

/** Merges validated custom_endpoint keys into the stored map; "" removes a key. */
export function mergeEndpoints(stored: Partial<Record<EndpointKey, string>>, update: Record<string, string>): Partial<Record<EndpointKey, string>> {
  const out: Partial<Record<EndpointKey, string>> = { ...stored };
  for (const [k, v] of Object.entries(update)) {
    const val = validateEndpoint(k, v);
    if (val === '') delete out[k as EndpointKey];
    else out[k as EndpointKey] = val;
  }
  return out;
}

/** The base URL (no trailing slash) a provider call uses: the override (with default path if none) or Google's. */
export function resolveEndpoint(key: EndpointKey, override: string | undefined): string {
  if (!override) return DEFAULT_ENDPOINTS[key].replace(/\/+$/, '');
  const u = new URL(override.includes('://') ? override : `https://${override}`);
  const base = `${u.protocol}//${u.host}`;
  const path = u.pathname === '/' || u.pathname === '' ? new URL(DEFAULT_ENDPOINTS[key]).pathname : u.pathname;
  return (base + path).replace(/\/+$/, '');
}

/** What the engine stores for a mount's config. */
export interface StoredCloudConfig extends KeylessConfig {
  credentials?: ServiceAccountKey;
  iam_alias?: string;
  /** null = the default list. */
  iam_metadata?: string[] | null;
  vm_alias?: string;
  vm_metadata?: string[] | null;
  custom_endpoint?: Partial<Record<EndpointKey, string>>;
}

/** The config read response (never the private key). */
export function configReadShape(c: StoredCloudConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (c.credentials) {
    for (const k of ['client_email', 'client_id', 'private_key_id', 'project_id'] as const) {
      if (c.credentials[k]) out[k] = c.credentials[k];
    }
  }
  out.iam_metadata = effectiveMetadata(c.iam_metadata, 'iam');
  out.vm_metadata = effectiveMetadata(c.vm_metadata, 'vm');
  if (c.iam_alias) out.iam_alias = c.iam_alias;
  if (c.vm_alias) out.vm_alias = c.vm_alias;
  const ce = Object.fromEntries(CUSTOM_ENDPOINT_KEYS.filter((k) => c.custom_endpoint?.[k]).map((k) => [k, c.custom_endpoint![k]!]));
  if (Object.keys(ce).length > 0) out.custom_endpoint = ce;
  return { ...out, ...keylessReadShape(c) };
}

/**
 * Applies a parsed config write to the stored config (merge: only present fields change).
 * Throws ApiError 400 naming the field and rule.
 */
export function applyConfigWrite(
  stored: StoredCloudConfig,
  values: {
    credentials?: string;
    iam_alias?: string;
    iam_metadata?: string[];
    vm_alias?: string;
    vm_metadata?: string[];
    custom_endpoint?: Record<string, string>;
  } & KeylessWrite,
): StoredCloudConfig {
  const next: StoredCloudConfig = { ...stored };
  if (values.credentials !== undefined) {
    if (values.credentials.trim() === '') delete next.credentials;
    else next.credentials = parseServiceAccountKey(values.credentials);
  }
  if (values.iam_alias !== undefined) next.iam_alias = validateAlias(values.iam_alias.trim(), 'iam');
  if (values.vm_alias !== undefined) next.vm_alias = validateAlias(values.vm_alias.trim(), 'vm');
  if (values.iam_metadata !== undefined) next.iam_metadata = parseMetadataList(values.iam_metadata, 'iam');
  if (values.vm_metadata !== undefined) next.vm_metadata = parseMetadataList(values.vm_metadata, 'vm');
  if (values.custom_endpoint !== undefined) next.custom_endpoint = mergeEndpoints(stored.custom_endpoint ?? {}, values.custom_endpoint);
  return applyKeylessWrite(next, values, next.credentials !== undefined);
}

/** Canonical read form of a desired config (for the reconciler's diff), without the secret. */
export function canonicalConfig(values: Parameters<typeof applyConfigWrite>[1]): Record<string, unknown> {
  return configReadShape(applyConfigWrite({}, values));
}
