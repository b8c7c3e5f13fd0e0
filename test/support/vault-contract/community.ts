// The contract server as Vault Community and OpenBao: what a snapshot agent needs from them and how
// they differ from Enterprise. Sources: OpenBao's api/sys_health.go and api-docs/system/health.mdx
// (its health has no `enterprise` field; versions 2.x), Vault's api-docs/system/health
// (`enterprise` since 1.16), api-docs/system/capabilities-self, auth/token (lookup-self,
// renew-self) and storage/raft (GET sys/storage/raft/snapshot streams the archive as
// application/octet-stream). Assumptions are listed in docs/vault-enterprise.md (contract server assumptions).

import { createHash } from 'node:crypto';
import { envelope, errors, type Ctx, type Reply } from './http';

export type Flavor = 'vault' | 'openbao';

/** Auth methods in the catalog without registration. OpenBao 2.x ships no cloud auth plugins built in. */
export function builtinAuth(flavor: Flavor): string[] {
  const common = ['approle', 'jwt', 'kubernetes', 'ldap', 'oidc', 'userpass', 'token'];
  return flavor === 'openbao' ? common : [...common, 'gcp'];
}

/** The health body fields that tell the flavors apart. */
export function healthIdentity(flavor: Flavor, enterprise: boolean): Record<string, unknown> {
  // Real OpenBao 2.7 still names its cluster vault-cluster-<hex>.
  if (flavor === 'openbao') return { cluster_name: 'vault-cluster-openbao0' };
  return { enterprise, cluster_name: 'vault-cluster-contract' };
}

/** The raft snapshot a community server streams: opaque bytes to its clients (here a fixed, hashable body). */
export function raftSnapshot(version: string): Buffer {
  const body = Buffer.from(`contract raft snapshot of ${version}\n`.repeat(64), 'utf8');
  return Buffer.concat([body, Buffer.from(createHash('sha256').update(body).digest('hex'))]);
}

/**
 * Paths every edition serves that an agent calls: sys/capabilities-self with the caller's token
 * (the contract token is root), the token's own lookup and renewal (root: no TTL, not renewable),
 * and the raft snapshot. Undefined for other paths.
 */
export function communityRoute(ctx: Ctx, version: string): Reply | undefined {
  if (ctx.path === 'sys/capabilities-self' && ctx.method === 'update') {
    // As real OpenBao answers (measured): each path's capabilities in `data` and at the top level; `capabilities`
    // only for the old single `path` parameter.
    const paths = Array.isArray(ctx.body.paths) ? ctx.body.paths.map(String) : [String(ctx.body.path ?? '')];
    const data: Record<string, string[]> = Object.fromEntries(paths.map((p) => [p, ['root']]));
    if (!Array.isArray(ctx.body.paths)) data.capabilities = ['root'];
    const reply = envelope(data);
    return { ...reply, body: { ...data, ...(reply.body as object) } };
  }
  if (ctx.path === 'auth/token/lookup-self' && ctx.method === 'read') return envelope({ ttl: 0, renewable: false, policies: ['root'] });
  if (ctx.path === 'auth/token/renew-self' && ctx.method === 'update') return errors(400, 'lease is not renewable');
  if (ctx.path === 'sys/storage/raft/snapshot' && ctx.method === 'read') return { status: 200, body: raftSnapshot(version) };
  return undefined;
}
