// sys/health, sys/license/status and sys/auth of the contract server, shaped like Vault's API docs
// (api-docs/system/health, system/license, system/auth sample responses).

import { randomUUID } from 'node:crypto';
import { envelope, errors, ignoredWarning, noContent, unsupportedPath, type Ctx, type Reply } from './http';

export interface Mount {
  type: string;
  description: string;
  accessor: string;
}

/** Types a stock Vault has in its catalog (a subset; "cloud" is not one of them). */
const BUILTIN_AUTH = ['approle', 'gcp', 'jwt', 'kubernetes', 'ldap', 'oidc', 'userpass', 'token'];

export interface SysOptions {
  enterprise: boolean;
  version: string;
}

export function health(o: SysOptions): Reply {
  return {
    status: 200,
    body: {
      initialized: true,
      sealed: false,
      standby: false,
      performance_standby: false,
      replication_performance_mode: 'disabled',
      replication_dr_mode: 'disabled',
      server_time_utc: 1700000000,
      version: o.version,
      enterprise: o.enterprise,
      cluster_name: 'vault-cluster-contract',
      cluster_id: '0c0c0c0c-0000-4000-8000-000000000000',
      echo_duration_ms: 0,
      clock_skew_ms: 0,
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

function mountEntry(m: Mount) {
  return {
    type: m.type,
    description: m.description,
    accessor: m.accessor,
    config: { default_lease_ttl: 0, max_lease_ttl: 0, force_no_cache: false, token_type: 'default-service' },
    local: false,
    seal_wrap: false,
    external_entropy_access: false,
    options: null,
    uuid: randomUUID(),
    plugin_version: '',
    running_plugin_version: m.type === 'gcp' ? 'v0.20.0+builtin' : 'v1.19.2+builtin.vault',
    deprecation_status: 'supported',
  };
}

export function sysAuth(ctx: Ctx, mounts: Map<string, Mount>, rest: string): Reply {
  if (rest === '') {
    if (ctx.method !== 'read') return errors(405, 'unsupported operation');
    const table = Object.fromEntries([...mounts].map(([p, m]) => [`${p}/`, mountEntry(m)]));
    // Vault returns the table in `data` and, for old clients, at the top level too.
    return { status: 200, body: { ...table, ...(envelope(table).body as object) } };
  }
  const tune = rest.endsWith('/tune');
  const path = tune ? rest.slice(0, -'/tune'.length) : rest;
  if (tune) {
    if (ctx.method !== 'update') return errors(405, 'unsupported operation');
    const m = mounts.get(path);
    if (!m) return errors(400, `cannot fetch sysview for path "auth/${path}/"`);
    const warnings = ignoredWarning(ctx, ['description', 'default_lease_ttl', 'max_lease_ttl', 'audit_non_hmac_request_keys', 'listing_visibility', 'token_type']);
    if (typeof ctx.body.description === 'string') m.description = ctx.body.description;
    return warnings ? envelope(null, warnings) : noContent;
  }
  if (ctx.method === 'delete') {
    mounts.delete(path);
    return noContent;
  }
  if (ctx.method !== 'update') return errors(405, 'unsupported operation');
  const warnings = ignoredWarning(ctx, ['type', 'description', 'config', 'local', 'seal_wrap', 'options', 'plugin_name', 'plugin_version']);
  const type = String(ctx.body.type ?? '');
  if (!BUILTIN_AUTH.includes(type)) {
    ctx.problem(`sys/auth/${path}: type ${JSON.stringify(type)} is not a Vault auth method`);
    return errors(400, `plugin not found in the catalog: ${type}`);
  }
  if (mounts.has(path)) return errors(400, `path is already in use at ${path}/`);
  mounts.set(path, { type, description: String(ctx.body.description ?? ''), accessor: `auth_${type}_${randomUUID().slice(0, 8)}` });
  return warnings ? envelope(null, warnings) : noContent;
}
