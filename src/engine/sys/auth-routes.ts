// sys/auth: list, enable, tune and disable auth methods at free-form paths ("cloud", "team/a").

import type { NamespaceRef, Route } from '../route-family';
import { tuneOf, type Mounts, type MountEntry } from '../mount/mounts';
import { SYSTEM_MAX_TTL } from '../token/lifetime';
import { field } from '../../schema/fields';
import { reply } from '../core/reply';
import { requestFields } from '../core/request-fields';
import { Errors } from '../../schema/errors';
import { ENGINE_VERSION } from './status-routes';

/** Built-in methods report the server's version with Vault's "+builtin" suffix and no plugin checksum. */
const RUNNING_VERSION = `v${ENGINE_VERSION.split('+')[0]}+builtin`;

/** A mount's `config` as Vault's mountInfo builds it: listing_visibility only when set. */
function configOf(m: Pick<MountEntry, 'config'>) {
  const t = tuneOf(m as MountEntry);
  const c: Record<string, unknown> = { default_lease_ttl: t.default_lease_ttl, force_no_cache: false, max_lease_ttl: t.max_lease_ttl, token_type: t.token_type };
  if (t.listing_visibility !== '') c.listing_visibility = t.listing_visibility;
  return c;
}

/**
 * A mount table entry in Vault's shape (sys/auth, sys/auth/:path). `options` is {} for an enabled mount (Vault
 * stores the enable request's options map, empty when none is sent) and null for the built-in token mount.
 */
function describe(m: Pick<MountEntry, 'accessor' | 'description' | 'type' | 'uuid' | 'local' | 'config'>, options: Record<string, string> | null = {}) {
  return {
    accessor: m.accessor,
    config: configOf(m),
    description: m.description,
    external_entropy_access: false,
    local: m.local ?? false,
    options,
    plugin_version: '',
    running_plugin_version: RUNNING_VERSION,
    running_sha256: '',
    seal_wrap: false,
    type: m.type,
    uuid: m.uuid,
  };
}

/** The mount at a sys/auth path (with or without its trailing slash), or a 400 naming the path. */
function mountAt(mounts: Mounts, ns: NamespaceRef, path: string): MountEntry {
  const m = mounts.list(ns).find((e) => e.path === `${path.replace(/\/+$/, '')}/`);
  if (!m) throw Errors.badRequest(`no auth mount at ${path}/`);
  return m;
}

const TOKEN_MOUNT = describe({ accessor: 'auth_token_root', description: 'token based credentials', type: 'token', uuid: '00000000-0000-0000-0000-000000000000' }, null);

const NS_TOKEN_MOUNT = { ...TOKEN_MOUNT, type: 'ns_token' };

const enableShape = {
  type: field.string(),
  description: field.string(),
  config: field.raw(),
  local: field.bool(),
  seal_wrap: field.bool(),
  options: field.raw(),
  plugin_name: field.string(),
};

/** Tune fields (raw: TTLs take seconds, Go durations, "" and "system"; mount-tune.ts parses them). */
const tuneShape = {
  description: field.string(),
  default_lease_ttl: field.raw(),
  max_lease_ttl: field.raw(),
  token_type: field.raw(),
  listing_visibility: field.raw(),
};

export function authRoutes(mounts: Mounts): Route[] {
  return [
    {
      pattern: 'sys/auth',
      operations: {
        read: (ctx) => {
          // A child namespace's token mount is of type ns_token, as in Vault (mountTypeNSToken) and OpenBao.
          const table: Record<string, unknown> = { 'token/': ctx.namespace.path === '' ? TOKEN_MOUNT : NS_TOKEN_MOUNT };
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
          const m = mountAt(mounts, ctx.namespace, ctx.params.path);
          // Like Vault's tune read: the effective TTLs (the system's where the mount sets none).
          const t = tuneOf(m);
          const data: Record<string, unknown> = {
            description: m.description,
            default_lease_ttl: t.default_lease_ttl || SYSTEM_MAX_TTL,
            max_lease_ttl: t.max_lease_ttl || SYSTEM_MAX_TTL,
            force_no_cache: false,
            token_type: t.token_type,
          };
          if (t.listing_visibility !== '') data.listing_visibility = t.listing_visibility;
          // Vault (and OpenBao, measured) copy these beside the envelope too, as for the sys/auth list.
          return reply.dataTopLevel(data);
        },
        update: async (ctx) => {
          const { values } = requestFields(ctx, tuneShape);
          if (ctx.params.path.replace(/\/+$/, '') === 'token') throw Errors.badRequest('the token auth method cannot be tuned here');
          await mounts.tune(ctx.namespace, ctx.params.path, values);
        },
      },
    },
    {
      pattern: 'sys/auth/:path*',
      sudo: true,
      operations: {
        read: (ctx) => {
          const m = mountAt(mounts, ctx.namespace, ctx.params.path);
          return reply.dataTopLevel(describe(m));
        },
        update: async (ctx) => {
          const { values } = requestFields(ctx, enableShape);
          const config = values.config ?? {};
          if (typeof config !== 'object' || Array.isArray(config) || config === null) throw Errors.badRequest('config: must be an object of tune settings');
          await mounts.enable(ctx.namespace, ctx.params.path, values.type ?? values.plugin_name ?? '', {
            description: values.description ?? '',
            local: values.local ?? false,
            config: config as Record<string, unknown>,
          });
        },
        delete: async (ctx) => {
          if (ctx.params.path.replace(/\/+$/, '') === 'token') throw Errors.badRequest('the token auth method cannot be disabled');
          await mounts.disable(ctx.namespace, ctx.params.path);
        },
      },
    },
  ];
}
