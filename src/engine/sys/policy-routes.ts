// sys/policy and sys/policies/acl (both spellings Vault offers), and sys/capabilities-self.

import type { RequestContext, Route } from '../route-family';
import { field } from '../../schema/fields';
import { Errors } from '../../schema/errors';
import { reply } from '../core/reply';
import { requestFields } from '../core/request-fields';
import type { PolicyStore } from '../policy/policy-store';
import type { Namespaces } from '../namespace/namespaces';

export function policyRoutes(policies: PolicyStore, namespaces: Namespaces): Route[] {
  const read = (key: 'rules' | 'policy') => async (ctx: RequestContext) => {
    const p = await policies.read(ctx.namespace, ctx.params.name);
    if (!p) throw Errors.notFound();
    // Vault copies the legacy sys/policy answer to the top level (node-vault's getPolicy reads it there).
    return key === 'rules' ? reply.dataTopLevel({ name: p.name, rules: p.policy }) : reply.data({ name: p.name, policy: p.policy });
  };
  const write = (key: 'rules' | 'policy') => async (ctx: RequestContext) => {
    const { values } = requestFields(ctx, { policy: field.string(), rules: field.string(), name: field.string() });
    const text = values.policy ?? values.rules;
    if (text === undefined) throw Errors.badRequest(`the "${key === 'rules' ? 'rules' : 'policy'}" field is required`);
    await policies.write(ctx.namespace, ctx.params.name, text);
  };
  const del = async (ctx: RequestContext) => void (await policies.delete(ctx.namespace, ctx.params.name));
  const list = async (ctx: RequestContext) => {
    const keys = await policies.list(ctx.namespace);
    return reply.data({ keys });
  };
  // The legacy sys/policy list also answers "policies", copied to the top level (node-vault's policies()).
  const legacyList = async (ctx: RequestContext) => {
    const keys = await policies.list(ctx.namespace);
    return reply.dataTopLevel({ keys, policies: keys });
  };

  return [
    { pattern: 'sys/policy/?', operations: { read: legacyList, list: legacyList } },
    { pattern: 'sys/policy/:name', operations: { read: read('rules'), update: write('rules'), delete: del } },
    { pattern: 'sys/policies/acl/?', operations: { list } },
    { pattern: 'sys/policies/acl/:name', operations: { read: read('policy'), update: write('policy'), delete: del } },
    {
      pattern: 'sys/capabilities-self',
      operations: {
        update: async (ctx) => {
          const { values } = requestFields(ctx, { path: field.string(), paths: field.commaList() });
          const paths = [...(values.paths ?? []), ...(values.path ? [values.path] : [])];
          if (paths.length === 0) throw Errors.badRequest('the "path" or "paths" field is required');
          const token = ctx.token!;
          const owner = namespaces.byId(token.namespaceId)!;
          const acl = await policies.acl(owner, token.policies);
          const prefix = ctx.namespace.path.slice(owner.path.length);
          const out: Record<string, string[]> = {};
          for (const p of paths) out[p] = acl.capabilities(prefix + p.replace(/^\/+/, ''));
          if (paths.length === 1) out.capabilities = out[paths[0]];
          return reply.dataTopLevel(out);
        },
      },
    },
  ];
}
