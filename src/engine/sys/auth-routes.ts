// sys/auth: list, enable, tune and disable auth methods at free-form paths ("cloud", "team/a").

import type { Route } from '../backend';
import type { Mounts, MountEntry } from '../mount/mounts';
import { field } from '../../schema/fields';
import { reply } from '../http/reply';
import { requestFields } from '../http/request-fields';
import { Errors } from '../../schema/errors';
import { ENGINE_VERSION } from './status-routes';

/** Built-in methods report the server's version with Vault's "+builtin" suffix and no plugin checksum. */
const RUNNING_VERSION = `v${ENGINE_VERSION.split('+')[0]}+builtin`;

/** A mount table entry in Vault's shape (sys/auth, sys/auth/:path). */
function describe(m: Pick<MountEntry, 'accessor' | 'description' | 'type' | 'uuid'>) {
  return {
    accessor: m.accessor,
    config: { default_lease_ttl: 0, force_no_cache: false, max_lease_ttl: 0, token_type: 'default-service' },
    description: m.description,
    external_entropy_access: false,
    local: false,
    options: null,
    plugin_version: '',
    running_plugin_version: RUNNING_VERSION,
    running_sha256: '',
    seal_wrap: false,
    type: m.type,
    uuid: m.uuid,
  };
}

const TOKEN_MOUNT = describe({ accessor: 'auth_token_root', description: 'token based credentials', type: 'token', uuid: '00000000-0000-0000-0000-000000000000' });

const enableShape = {
  type: field.string(),
  description: field.string(),
  config: field.raw(),
  local: field.bool(),
  seal_wrap: field.bool(),
  options: field.raw(),
  plugin_name: field.string(),
};

export function authRoutes(mounts: Mounts): Route[] {
  return [
    {
      pattern: 'sys/auth',
      operations: {
        read: (ctx) => {
          const table: Record<string, unknown> = { 'token/': TOKEN_MOUNT };
          for (const m of mounts.list(ctx.namespace)) table[m.path] = describe(m);
          return reply.dataTopLevel(table);
        },
      },
    },
    {
      pattern: 'sys/auth/:path*/tune',
      sudo: true,
      operations: {
        read: (ctx) => {
          const m = mounts.list(ctx.namespace).find((e) => e.path === `${ctx.params.path.replace(/\/+$/, '')}/`);
          if (!m) throw Errors.badRequest(`no auth mount at ${ctx.params.path}/`);
          return reply.data({ description: m.description, default_lease_ttl: 2764800, max_lease_ttl: 2764800, token_type: 'default-service' });
        },
        update: async (ctx) => {
          const { values } = requestFields(ctx, { description: field.string(), default_lease_ttl: field.raw(), max_lease_ttl: field.raw() });
          if (values.description !== undefined) await mounts.tune(ctx.namespace, ctx.params.path, values.description);
        },
      },
    },
    {
      pattern: 'sys/auth/:path*',
      sudo: true,
      operations: {
        read: (ctx) => {
          const m = mounts.list(ctx.namespace).find((e) => e.path === `${ctx.params.path.replace(/\/+$/, '')}/`);
          if (!m) throw Errors.badRequest(`no auth mount at ${ctx.params.path}/`);
          return reply.dataTopLevel(describe(m));
        },
        update: async (ctx) => {
          const { values } = requestFields(ctx, enableShape);
          await mounts.enable(ctx.namespace, ctx.params.path, values.type ?? values.plugin_name ?? '', values.description ?? '');
        },
        delete: async (ctx) => {
          if (ctx.params.path.replace(/\/+$/, '') === 'token') throw Errors.badRequest('the token auth method cannot be disabled');
          await mounts.disable(ctx.namespace, ctx.params.path);
        },
      },
    },
  ];
}
