// The contract server as Vault Community and OpenBao: what a snapshot agent needs from them and how
// they differ from Enterprise. Sources: OpenBao's api/sys_health.go and api-docs/system/health.mdx
// (its health has no `enterprise` field; versions 2.x), Vault's api-docs/system/health
// (`enterprise` since 1.16), api-docs/system/capabilities-self, auth/token (lookup-self,
// renew-self) and storage/raft (GET sys/storage/raft/snapshot streams the archive; real OpenBao 2.7.2 answers
// application/gzip, chunked). Assumptions are listed in docs/vault-enterprise.md (contract server assumptions).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
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

/**
 * What GET sys/storage/raft/snapshot streams: 'complete' is a real archive recorded from OpenBao 2.7.2
 * (a one-node raft cluster of test/support/openbao.ts, 2026-11-28, named .tar.gz so jest does not take
 * it for a jest snapshot; gzip tar of meta.json, state.bin,
 * SHA256SUMS, SHA256SUMS.sealed). The failures a server shows after its 200 (issue 39): 'cut' ends the
 * body after a third of the gzip (the server failed mid-stream), 'unsealed' is a complete gzip tar
 * without SHA256SUMS.sealed (written last; the seal failed).
 */
export type RaftSnapshotMode = 'complete' | 'cut' | 'unsealed';

export const RECORDED_RAFT_SNAPSHOT = join(__dirname, 'fixtures', 'openbao-2.7.2-raft.tar.gz');

let recorded: Buffer | undefined;

/** The tar without its SHA256SUMS.sealed entry (the last one), ended by two zero blocks, gzipped again. */
function dropSealed(archive: Buffer): Buffer {
  const t = gunzipSync(archive);
  for (let off = 0; off + 512 <= t.length;) {
    const name = t
      .subarray(off, off + 100)
      .toString('utf8')
      .replace(/\0.*$/s, '');
    if (name === '') break;
    if (name === 'SHA256SUMS.sealed') return gzipSync(Buffer.concat([t.subarray(0, off), Buffer.alloc(1024)]));
    const size = parseInt(
      t
        .subarray(off + 124, off + 136)
        .toString('utf8')
        .replace(/\0.*$/s, '')
        .trim(),
      8,
    );
    off += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error('the recorded archive has no SHA256SUMS.sealed');
}

export function raftSnapshot(mode: RaftSnapshotMode = 'complete'): Buffer {
  recorded ??= readFileSync(RECORDED_RAFT_SNAPSHOT);
  if (mode === 'cut') return recorded.subarray(0, Math.floor(recorded.length / 3));
  if (mode === 'unsealed') return dropSealed(recorded);
  return recorded;
}

/**
 * Paths every edition serves that an agent calls: sys/capabilities-self with the caller's token
 * (the contract token is root), the token's own lookup and renewal (root: no TTL, not renewable),
 * and the raft snapshot (in `snapshot` mode). Undefined for other paths.
 */
export function communityRoute(ctx: Ctx, snapshot: RaftSnapshotMode): Reply | undefined {
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
  if (ctx.path === 'sys/storage/raft/snapshot' && ctx.method === 'read') return { status: 200, body: raftSnapshot(snapshot) };
  return undefined;
}
