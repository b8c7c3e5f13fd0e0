// auth/<mount>/role/:name (write = create or merge-update, read, delete) and LIST role/, roles/
// (keys, and key_info: every role's read shape).
// Names are lower-cased on every path; the write rules live in src/schema/cloud-role-write.ts.

import { randomUUID } from 'node:crypto';
import type { Route, RequestContext } from '../../route-family';
import { reply } from '../../core/reply';
import { requestFields } from '../../core/request-fields';
import { Errors } from '../../../schema/errors';
import { roleWriteShape, normalizeRoleName } from '../../../schema/cloud-role';
import { applyRoleWrite, roleReadShape } from '../../../schema/cloud-role-write';
import type { CloudState } from './state';

const nameOf = (ctx: RequestContext) => normalizeRoleName(ctx.params.name ?? '');

export function roleRoutes(state: CloudState): Route[] {
  const write = async (ctx: RequestContext) => {
    const name = nameOf(ctx);
    if (!name) throw Errors.badRequest('role name is required');
    const { values } = requestFields(ctx, roleWriteShape);
    delete values.name;
    const existing = await state.role(name);
    const { role, warnings } = applyRoleWrite(existing, values, { newRoleId: randomUUID(), engineRules: true });
    await state.saveRole(name, role);
    ctx.warnings.push(...warnings);
    return reply.data(null);
  };
  // key_info carries each role as a read returns it (Vault's LIST endpoints that have key_info do
  // likewise), so a client refreshes a mount's roles with one request instead of one GET per role.
  // Vault's plugin answers keys only; the engine's key_info is made and serialized once per change
  // of the roles (state.roleListing), so thousands of roles and many concurrent LISTs do not
  // starve other requests.
  const list = async () => {
    const listing = await state.roleListing((roles) => {
      const key_info: Record<string, unknown> = {};
      for (const [name, role] of roles) key_info[name] = roleReadShape(role);
      return { count: roles.size, json: JSON.stringify({ keys: [...roles.keys()], key_info }) };
    });
    if (listing.count === 0) throw Errors.notFound();
    return reply.dataJson(listing.json);
  };
  return [
    {
      pattern: 'role/:name',
      unknownFields: 'reject',
      exists: async (ctx) => (await state.role(nameOf(ctx))) !== undefined,
      operations: {
        create: write,
        update: write,
        read: async (ctx) => {
          const role = await state.role(nameOf(ctx));
          if (!role) throw Errors.notFound();
          return reply.data(roleReadShape(role));
        },
        delete: async (ctx) => {
          await state.deleteRole(nameOf(ctx));
          return reply.none();
        },
      },
    },
    { pattern: 'role/?', operations: { list } },
    { pattern: 'roles/?', operations: { list } },
  ];
}
