// sys/health, sys/license/status and sys/auth (enable, list, tune) of the contract server, shaped
// like Vault's API docs (api-docs/system/health, system/license, system/auth sample responses) and
// vault/logical_system.go's tune handlers.

import { randomUUID } from 'node:crypto';
import { builtinAuth, healthIdentity, type Flavor } from './community';
import { asBool, asSeconds, envelope, errors, ignoredWarning, noContent, unsupportedPath, type Ctx, type Reply } from './http';

export interface MountConfig {
  default_lease_ttl: number;
  max_lease_ttl: number;
  token_type: string;
  listing_visibility: string;
}

export interface Mount {
  type: string;
  description: string;
  accessor: string;
  local?: boolean;
  config?: MountConfig;
}

/** The system defaults Vault reports on a tune read when a mount has none (768h). */
const SYSTEM_TTL = 2764800;
const TOKEN_TYPES = ['default-service', 'default-batch', 'service', 'batch'];
const VISIBILITY = ['', 'hidden', 'unauth'];

export interface SysOptions {
  enterprise: boolean;
  version: string;
  /** Vault (default) or OpenBao (community.ts). */
  flavor?: Flavor;
  /** Auth plugins registered in the catalog beyond the built-in ones (OpenBao's GCP plugin name). */
  registeredAuth?: string[];
  /** A sealed node: sys/health 503 (`sealedcode`), sealed: true; every other path 503 (http/handler.go). */
  sealed?: boolean;
}

export type NodeRole = 'active' | 'standby' | 'perfstandby';

/** sys/health: 200 active, 429 standby, 473 performance standby (the `*ok`/`*code` query overrides). */
export function health(o: SysOptions, role: NodeRole = 'active', query: URLSearchParams = new URLSearchParams()): Reply {
  let status = 200;
  if (role === 'standby' && query.get('standbyok') !== 'true') status = Number(query.get('standbycode') ?? 429);
  if (role === 'perfstandby' && query.get('perfstandbyok') !== 'true') status = Number(query.get('performancestandbycode') ?? 473);
  if (o.sealed) status = Number(query.get('sealedcode') ?? 503);
  return {
    status,
    body: {
      initialized: true,
      sealed: o.sealed === true,
      standby: role !== 'active',
      ...(o.flavor === 'openbao' ? {} : { performance_standby: role === 'perfstandby' }),
      replication_performance_mode: 'disabled',
      replication_dr_mode: 'disabled',
      server_time_utc: 1700000000,
      version: o.version,
      ...healthIdentity(o.flavor ?? 'vault', o.enterprise),
      cluster_id: '0c0c0c0c-0000-4000-8000-000000000000',
      // Vault's; real OpenBao 2.7's health has neither these nor performance_standby (measured).
      ...(o.flavor === 'openbao' ? {} : { echo_duration_ms: 0, clock_skew_ms: 0 }),
    },
  };
}

export function licenseStatus(o: SysOptions): Reply {
  if (!o.enterprise) return unsupportedPath();
  return envelope({
    autoloading_used: true,
    persisted_autoload: { expiration_time: '2100-01-01T00:00:00Z', features: ['Automated Snapshots', 'Namespaces'], license_id: 'contract' },
    autoloaded: { expiration_time: '2100-01-01T00:00:00Z', features: ['Automated Snapshots', 'Namespaces'], license_id: 'contract' },
  });
}

const configOf = (m: Mount): MountConfig => m.config ?? { default_lease_ttl: 0, max_lease_ttl: 0, token_type: 'default-service', listing_visibility: '' };

function mountEntry(m: Mount) {
  const c = configOf(m);
  const config: Record<string, unknown> = { default_lease_ttl: c.default_lease_ttl, max_lease_ttl: c.max_lease_ttl, force_no_cache: false, token_type: c.token_type };
  // mountInfo adds listing_visibility only when set.
  if (c.listing_visibility !== '') config.listing_visibility = c.listing_visibility;
  return {
    type: m.type,
    description: m.description,
    accessor: m.accessor,
    config,
    local: m.local ?? false,
    seal_wrap: false,
    external_entropy_access: false,
    options: null,
    uuid: randomUUID(),
    plugin_version: '',
    running_plugin_version: m.type === 'gcp' ? 'v0.20.0+builtin' : 'v1.19.2+builtin.vault',
    deprecation_status: 'supported',
  };
}

/** A tune TTL: "" keeps it, "system" resets it, else seconds or a Go duration. */
function ttl(v: unknown, current: number): number {
  if (v === undefined || v === '') return current;
  if (v === 'system') return 0;
  return asSeconds(v);
}

/** Applies tune-style settings (tune body, or the `config` of an enable) to a mount's config. */
function applyConfig(base: MountConfig, b: Record<string, unknown>): MountConfig | Reply {
  const c = { ...base };
  try {
    c.default_lease_ttl = ttl(b.default_lease_ttl, c.default_lease_ttl);
    c.max_lease_ttl = ttl(b.max_lease_ttl, c.max_lease_ttl);
  } catch (e) {
    return errors(400, `unable to parse lease TTL: ${(e as Error).message}`);
  }
  if (c.max_lease_ttl !== 0 && c.default_lease_ttl > c.max_lease_ttl) return errors(400, 'backend max lease TTL cannot be less than backend default lease TTL');
  if (b.token_type !== undefined && b.token_type !== '') {
    if (!TOKEN_TYPES.includes(String(b.token_type))) return errors(400, `invalid value for "token_type": ${String(b.token_type)}`);
    c.token_type = String(b.token_type);
  }
  if (b.listing_visibility !== undefined) {
    if (!VISIBILITY.includes(String(b.listing_visibility))) return errors(400, 'invalid listing_visibility type');
    c.listing_visibility = String(b.listing_visibility);
  }
  return c;
}

const isReply = (x: MountConfig | Reply): x is Reply => 'status' in x;

export function sysAuth(ctx: Ctx, mounts: Map<string, Mount>, rest: string, o: Pick<SysOptions, 'flavor' | 'registeredAuth'> = {}): Reply {
  if (rest === '') {
    if (ctx.method !== 'read') return errors(405, 'unsupported operation');
    const table = Object.fromEntries([...mounts].map(([p, m]) => [`${p}/`, mountEntry(m)]));
    // Vault returns the table in `data` and, for old clients, at the top level too.
    return { status: 200, body: { ...table, ...(envelope(table).body as object) } };
  }
  const tune = rest.endsWith('/tune');
  const path = tune ? rest.slice(0, -'/tune'.length) : rest;
  if (tune) {
    const m = mounts.get(path);
    if (!m) return errors(400, `cannot fetch sysview for path "auth/${path}/"`);
    const c = configOf(m);
    if (ctx.method === 'read') {
      // handleTuneReadCommon reports the effective TTLs (system defaults where the mount has none).
      const data: Record<string, unknown> = {
        description: m.description,
        default_lease_ttl: c.default_lease_ttl || SYSTEM_TTL,
        max_lease_ttl: c.max_lease_ttl || SYSTEM_TTL,
        force_no_cache: false,
        token_type: c.token_type,
      };
      if (c.listing_visibility !== '') data.listing_visibility = c.listing_visibility;
      return envelope(data);
    }
    if (ctx.method !== 'update') return errors(405, 'unsupported operation');
    const warnings = ignoredWarning(ctx, ['description', 'default_lease_ttl', 'max_lease_ttl', 'audit_non_hmac_request_keys', 'listing_visibility', 'token_type']);
    if (path === 'token' && ctx.body.token_type !== undefined) return errors(400, 'tuning of token_type is not supported on the token auth method');
    const next = applyConfig(c, ctx.body);
    if (isReply(next)) return next;
    m.config = next;
    if (typeof ctx.body.description === 'string') m.description = ctx.body.description;
    return warnings ? envelope(null, warnings) : noContent;
  }
  if (ctx.method === 'delete') {
    mounts.delete(path);
    return noContent;
  }
  if (ctx.method === 'read') {
    // GET sys/auth/:path (Vault >= 1.10): the one entry, in `data` and at the top level.
    const m = mounts.get(path);
    if (!m) return errors(400, `No auth engine at auth/${path}/`);
    const entry = mountEntry(m);
    return { status: 200, body: { ...entry, ...(envelope(entry).body as object) } };
  }
  if (ctx.method !== 'update') return errors(405, 'unsupported operation');
  const warnings = ignoredWarning(ctx, ['type', 'description', 'config', 'local', 'seal_wrap', 'options', 'plugin_name', 'plugin_version']);
  const type = String(ctx.body.type ?? '');
  // Types a stock server has in its catalog (a subset; "cloud" is never one of them), plus registered plugins.
  if (![...builtinAuth(o.flavor ?? 'vault'), ...(o.registeredAuth ?? [])].includes(type)) {
    ctx.problem(`sys/auth/${path}: type ${JSON.stringify(type)} is not a Vault auth method`);
    return errors(400, `plugin not found in the catalog: ${type}`);
  }
  if (mounts.has(path)) return errors(400, `path is already in use at ${path}/`);
  const config = applyConfig(configOf({} as Mount), (ctx.body.config ?? {}) as Record<string, unknown>);
  if (isReply(config)) return config;
  mounts.set(path, { type, description: String(ctx.body.description ?? ''), accessor: `auth_${type}_${randomUUID().slice(0, 8)}`, local: asBool(ctx.body.local), config });
  return warnings ? envelope(null, warnings) : noContent;
}
