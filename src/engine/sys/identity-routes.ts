// identity/entity/id/:id: read an entity with its aliases and the group aliases of its logins.

import type { Route } from '../route-family';
import { Errors } from '../../schema/errors';
import { reply } from '../core/reply';
import type { IdentityStore } from '../identity/identity-store';

export function identityRoutes(identity: IdentityStore): Route[] {
  return [
    {
      pattern: 'identity/entity/id/:id',
      operations: {
        read: async (ctx) => {
          const e = await identity.get(ctx.params.id);
          if (!e || e.namespace_id !== ctx.namespace.id) throw Errors.notFound();
          return reply.data({ ...e, group_aliases: e.group_aliases.map((g) => g.name) });
        },
      },
    },
  ];
}
