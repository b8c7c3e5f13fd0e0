// sys/namespaces: create, read, list and delete child namespaces of the request's namespace.

import type { NamespaceRef, Route } from '../route-family';
import { field } from '../../schema/fields';
import { Errors } from '../../schema/errors';
import { reply } from '../core/reply';
import { requestFields } from '../core/request-fields';
import type { Namespaces } from '../namespace/namespaces';
import type { Mounts } from '../mount/mounts';
import type { JsonStore } from '../storage/json-store';

/** `identityKeys`: the plugin identity keys, deleted with their namespace. */
export function namespaceRoutes(namespaces: Namespaces, mounts: Mounts, root: JsonStore, identityKeys: { forget(ns: NamespaceRef): Promise<void> }): Route[] {
  return [
    {
      pattern: 'sys/namespaces/?',
      operations: {
        list: (ctx) => {
          const keys = namespaces.children(ctx.namespace);
          if (keys.length === 0) throw Errors.notFound();
          const key_info: Record<string, unknown> = {};
          for (const k of keys) {
            const r = namespaces.record(ctx.namespace.path + k)!;
            key_info[k] = { id: r.id, path: r.path, custom_metadata: r.custom_metadata };
          }
          return reply.data({ keys, key_info });
        },
      },
    },
    {
      pattern: 'sys/namespaces/:name*',
      operations: {
        read: (ctx) => {
          const r = namespaces.record(ctx.namespace.path + ctx.params.name);
          if (!r) throw Errors.notFound();
          return reply.data({ id: r.id, path: r.path, custom_metadata: r.custom_metadata });
        },
        update: async (ctx) => {
          const { values } = requestFields(ctx, { custom_metadata: field.kvMap() });
          const r = await namespaces.create(ctx.namespace, ctx.params.name, values.custom_metadata ?? {});
          return reply.data({ id: r.id, path: r.path, custom_metadata: r.custom_metadata });
        },
        delete: async (ctx) => {
          const r = namespaces.record(ctx.namespace.path + ctx.params.name);
          if (!r) return;
          if (namespaces.children(r).length > 0) throw Errors.badRequest(`cannot delete namespace "${r.path}": it contains child namespaces`);
          await mounts.disableAll(r);
          await root.deletePrefix(`ns/${r.id}/`);
          await identityKeys.forget(r);
          await namespaces.delete(r);
        },
      },
    },
  ];
}
