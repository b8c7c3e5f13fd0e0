// A minimal auth method for testing the core through the AuthMethod contract: roles hold token
// settings, login takes a role name, renewal re-reads the role. Not part of the product.

import type { AuthMethodFactory } from '../../src/engine/route-family';
import { reply } from '../../src/engine/core/reply';
import { requestFields } from '../../src/engine/core/request-fields';
import { field } from '../../src/schema/fields';
import { Errors } from '../../src/schema/errors';

const roleShape = {
  token_policies: field.commaList(),
  token_ttl: field.duration(),
  token_max_ttl: field.duration(),
  token_explicit_max_ttl: field.duration(),
  token_period: field.duration(),
  token_num_uses: field.int(),
  token_bound_cidrs: field.commaList(),
  token_type: field.string(),
};

type Role = { [K in keyof typeof roleShape]?: unknown } & Record<string, unknown>;

export const staticAuthMethod: AuthMethodFactory = {
  type: 'static',
  create: ({ storage }) => ({
    routes: [
      {
        pattern: 'role/:name',
        exists: async (ctx) => (await ctx.storage.get(`role/${ctx.params.name}`)) !== undefined,
        operations: {
          read: async (ctx) => {
            const r = await ctx.storage.get(`role/${ctx.params.name}`);
            if (!r) throw Errors.notFound();
            return reply.data(r);
          },
          update: async (ctx) => {
            const { values } = requestFields(ctx, roleShape);
            await ctx.storage.put(`role/${ctx.params.name}`, values);
          },
          delete: async (ctx) => void (await ctx.storage.delete(`role/${ctx.params.name}`)),
        },
      },
      {
        pattern: 'login',
        unauthenticated: true,
        operations: {
          update: async (ctx) => {
            const name = String(ctx.body.role ?? '');
            const r = await ctx.storage.get<Role>(`role/${name}`);
            if (!r) throw Errors.badRequest(`role "${name}" not found`);
            return reply.login({
              displayName: name,
              metadata: { role: name },
              alias: { name, metadata: { role: name } },
              settings: {
                policies: (r.token_policies as string[]) ?? [],
                ttl: (r.token_ttl as number) ?? 0,
                maxTtl: (r.token_max_ttl as number) ?? 0,
                explicitMaxTtl: (r.token_explicit_max_ttl as number) ?? 0,
                period: (r.token_period as number) ?? 0,
                numUses: (r.token_num_uses as number) ?? 0,
                boundCidrs: (r.token_bound_cidrs as string[]) ?? [],
                noDefaultPolicy: false,
                type: (r.token_type as 'service' | 'batch') ?? 'default',
              },
            });
          },
        },
      },
    ],
    renew: async ({ token }) => {
      const r = await storage.get<Role>(`role/${token.meta.role}`);
      if (!r) throw Errors.badRequest(`role "${token.meta.role}" no longer exists`);
      return { ttl: (r.token_ttl as number) ?? 0, maxTtl: (r.token_max_ttl as number) ?? 0, period: (r.token_period as number) ?? 0 };
    },
  }),
};
