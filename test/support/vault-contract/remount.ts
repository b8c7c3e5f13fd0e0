// sys/remount and sys/remount/status/:id (Vault >= 1.10, api-docs/system/remount): an asynchronous
// migration of a mount to a new path that keeps its accessor, config and data. The contract server
// moves the mount at once but reports "in-progress" for the first status reads (as a slow migration
// would), so a client must poll.

import { randomUUID } from 'node:crypto';
import { envelope, errors, ignoredWarning, type Ctx, type Reply } from './http';
import type { Mount } from './sys';

export interface Migration {
  source_mount: string;
  target_mount: string;
  status: 'in-progress' | 'success' | 'failure';
  /** Status reads still answering "in-progress". */
  pending: number;
  final: 'success' | 'failure';
}

export interface RemountOptions {
  /** Status reads answered "in-progress" before the final state (default 1). */
  pendingReads: number;
  /** Set by a test: the next migration ends in "failure" (the mount stays where it was). */
  failNext: boolean;
  /**
   * Set by a test: the next migration succeeds but its id is forgotten at once, as after a leader
   * change or a restart (Vault keeps the tracker in the active node's memory): its status is a 404.
   */
  forgetNext?: boolean;
}

const authPath = (p: unknown) => String(p ?? '').replace(/^\/+|\/+$/g, '');

export function remount(ctx: Ctx, mounts: Map<string, Mount>, migrations: Map<string, Migration>, o: RemountOptions, move: (from: string, to: string) => void): Reply {
  if (ctx.method !== 'update') return errors(405, 'unsupported operation');
  const warnings = ignoredWarning(ctx, ['from', 'to']);
  const from = authPath(ctx.body.from);
  const to = authPath(ctx.body.to);
  if (from === '' || to === '') return errors(400, '"from" and "to" are required');
  if (from.startsWith('auth/') !== to.startsWith('auth/')) return errors(400, 'cannot remount auth mount to non-auth mount');
  if (!from.startsWith('auth/')) return errors(400, `no matching mount at "${from}/"`);
  const src = from.slice('auth/'.length);
  const dst = to.slice('auth/'.length);
  if (src === 'token') return errors(400, 'cannot remount "auth/token/"');
  if (!mounts.has(src)) return errors(400, `no matching mount at "${from}/"`);
  if (mounts.has(dst) || [...mounts.keys()].some((k) => k.startsWith(`${dst}/`) || dst.startsWith(`${k}/`))) return errors(400, `path already in use at "${to}/"`);
  const id = randomUUID();
  const final = o.failNext ? 'failure' : 'success';
  o.failNext = false;
  if (final === 'success') move(src, dst);
  if (o.forgetNext) {
    o.forgetNext = false;
    return envelope({ migration_id: id }, warnings);
  }
  migrations.set(id, { source_mount: `${from}/`, target_mount: `${to}/`, status: 'in-progress', pending: o.pendingReads, final });
  return envelope({ migration_id: id }, warnings);
}

export function remountStatus(ctx: Ctx, migrations: Map<string, Migration>, id: string): Reply {
  if (ctx.method !== 'read') return errors(405, 'unsupported operation');
  const m = migrations.get(id);
  // Vault's handleRemountStatusCheck returns a nil response for an id it does not know, which
  // RespondErrorCommon turns into a bare 404 (OpenBao 2.7.2 measured: 404 {"errors":[]}).
  if (!m) return errors(404);
  if (m.pending > 0) m.pending--;
  else m.status = m.final;
  return envelope({ migration_id: id, migration_info: { source_mount: m.source_mount, target_mount: m.target_mount, status: m.status } });
}
