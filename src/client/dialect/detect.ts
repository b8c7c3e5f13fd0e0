// Which dialect a server speaks, from GET sys/health (unauthenticated, root namespace).
//
// Rules (Vault's docs: api-docs/system/health, and hashicorp/vault#24270 which added the
// `enterprise` flag in 1.16; Vault Enterprise builds report versions like "1.19.2+ent",
// "1.19.2+ent.hsm", "1.19.2+ent.fips1402", older ones "+prem"/"+pro"; community Vault and OpenBao
// report a bare version such as "1.19.2" or "2.2.0"):
//   - `version` contains "+keyward"      -> keyward (the embedded engine)
//   - any other version                   -> vault (Enterprise when `enterprise` is true or the
//                                            version carries +ent/+prem/+pro; else community/OpenBao)
//   - no version (not a Vault-like server) -> an error asking for an explicit dialect.
// OpenBao (Vault's names): its sys/health has no `enterprise` field at all (openbao's
// api/sys_health.go HealthResponse and api-docs/system/health.mdx, unlike Vault >= 1.16 which
// always sends it) and its versions start at 2.0.0 (forked from Vault 1.14).
// A keyward snapshot agent answers with the managed server's health plus
// `keyward_snapshot_agent: true`: it serves snapshot-auto whatever the server's edition.
// sys/health answers non-200 statuses for healthy-but-special nodes (429 standby, 472 DR secondary,
// 473 performance standby, 501 uninitialized, 503 sealed); the body still carries the version.

import type { ServerDialect } from '../options';

export interface ServerInfo {
  dialect: ServerDialect;
  /** sys/health `version`; "" when the dialect was set explicitly and health was not read. */
  version: string;
  /** Whether the server reports an enterprise edition (undefined: unknown). */
  enterprise?: boolean;
  /** OpenBao (a Vault-named dialect without Enterprise features); set only when detected. */
  openbao?: true;
  /** The address is a keyward snapshot agent (serves snapshot-auto only); set only when so. */
  snapshotAgent?: true;
  /** sys/health `cluster_id` when sent (an agent reports its managed server's). */
  clusterId?: string;
}

export const HEALTH_STATUSES = [429, 472, 473, 501, 503];

export class DialectDetectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DialectDetectionError';
  }
}

const ENTERPRISE_SUFFIX = /\+(ent|prem|pro)(\.|$)/;

/** Interprets a sys/health body; `address` only names the server in the error. */
export function serverInfoFromHealth(body: unknown, address: string): ServerInfo {
  const h = (body && typeof body === 'object' ? body : {}) as { version?: unknown; enterprise?: unknown; keyward_snapshot_agent?: unknown; cluster_id?: unknown };
  if (typeof h.version !== 'string' || h.version.trim() === '') {
    throw new DialectDetectionError(
      `cannot tell which dialect ${address} speaks: sys/health returned no version. Set it explicitly: --dialect keyward|vault, dialect in the keyward provider block, KEYWARD_DIALECT, or the manifest's server.dialect`,
    );
  }
  const version = h.version.trim();
  const agent = {
    ...(h.keyward_snapshot_agent === true ? { snapshotAgent: true as const } : {}),
    ...(typeof h.cluster_id === 'string' && h.cluster_id !== '' ? { clusterId: h.cluster_id } : {}),
  };
  if (version.includes('+keyward')) return { dialect: 'keyward', version, enterprise: h.enterprise === true, ...agent };
  const enterprise = h.enterprise === true || ENTERPRISE_SUFFIX.test(version);
  const openbao = !enterprise && !('enterprise' in h) && Number(/^v?(\d+)\./.exec(version)?.[1] ?? 0) >= 2 ? { openbao: true as const } : {};
  return { dialect: 'vault', version, enterprise, ...openbao, ...agent };
}

/** A human name of the edition, for errors. */
export function editionName(info: ServerInfo): string {
  if (info.dialect === 'keyward') return `keyward engine ${info.version}${info.enterprise === false ? ' in oss edition' : ''}`;
  if (info.enterprise) return `Vault Enterprise ${info.version}`;
  if (info.openbao) return `OpenBao ${info.version}`;
  return `a community edition (Vault community or OpenBao) ${info.version}`;
}
