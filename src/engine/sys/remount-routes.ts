// sys/remount and sys/remount/status/:migration_id (Vault >= 1.10): moves an auth mount to a new
// path, keeping its config, roles and accessor, and revokes every token issued through it, as
// Vault's remountCredential does (vault/auth.go; the remount API docs say so). Vault runs
// the move as a background migration; the engine's move is one table write, so it is done when the
// POST returns and the status reads "success" at once. Only auth mounts exist in the engine.

import { randomUUID } from 'node:crypto';
import type { Route } from '../route-family';
import type { Mounts } from '../mount/mounts';
import type { TokenStore } from '../token/token-store';
import { field } from '../../schema/fields';
import { reply } from '../core/reply';
import { requestFields } from '../core/request-fields';
import { Errors } from '../../schema/errors';

interface Migration {
  namespaceId: string;
  source_mount: string;
  target_mount: string;
  status: 'in-progress' | 'success' | 'failure';
}

/** Migrations kept for status reads (Vault keeps them in memory too); the oldest go first. */
const KEPT = 256;

const authPath = (field: string, v: string | undefined): string => {
  const p = (v ?? '').replace(/^\/+|\/+$/g, '');
  if (p === '') throw Errors.badRequest(`the "${field}" field is required (for example "auth/cloud")`);
  if (!p.startsWith('auth/')) throw Errors.badRequest(`${field}: "${p}" is not an auth mount path; the engine moves auth mounts only (paths start with "auth/")`);
  return p.slice('auth/'.length);
};

export function remountRoutes(mounts: Mounts, tokens: TokenStore): Route[] {
  const migrations = new Map<string, Migration>();
  return [
    {
      pattern: 'sys/remount',
      sudo: true,
      operations: {
        update: async (ctx) => {
          const { values } = requestFields(ctx, { from: field.string(), to: field.string() });
          const from = authPath('from', values.from);
          const to = authPath('to', values.to);
          const moved = await mounts.remount(ctx.namespace, from, to);
          await tokens.revokeIssuedUnder(ctx.namespace.id, `auth/${from}/`);
          const id = randomUUID();
          migrations.set(id, { namespaceId: ctx.namespace.id, source_mount: `auth/${from}/`, target_mount: `auth/${moved.path}`, status: 'success' });
          if (migrations.size > KEPT) migrations.delete(migrations.keys().next().value!);
          return reply.data({ migration_id: id });
        },
      },
    },
    {
      pattern: 'sys/remount/status/:id',
      sudo: true,
      operations: {
        read: (ctx) => {
          const m = migrations.get(ctx.params.id);
          // As Vault: handleRemountStatusCheck returns nil for an id it does not know, which
          // RespondErrorCommon answers with a bare 404 (OpenBao 2.7.2 measured: 404 {"errors":[]}).
          if (!m || m.namespaceId !== ctx.namespace.id) throw Errors.notFound();
          return reply.data({ migration_id: ctx.params.id, migration_info: { source_mount: m.source_mount, target_mount: m.target_mount, status: m.status } });
        },
      },
    },
  ];
}
