// auth/<mount>/login: the common pipeline (role, jwt, verification, bound CIDRs) then the
// role type's authorization. Unauthenticated; unknown fields are refused (422). Every refusal is
// logged with the role, the reason and the client address (never the JWT).

import type { RequestContext, Route } from '../../route-family';
import { reply } from '../../core/reply';
import { requestFields } from '../../core/request-fields';
import { ApiError, Errors } from '../../../schema/errors';
import { field } from '../../../schema/fields';
import { addressInCidrs } from '../../../schema/cidr';
import type { CloudState } from './state';
import { verifyLoginJwt } from './jwt';
import { loginIam } from './login-iam';
import { loginVm } from './login-vm';

// The JWT is a bearer credential: a wrongly typed one must not be quoted in the error or the log.
const loginShape = { role: field.string(), jwt: field.secretString() };

export function loginRoutes(state: CloudState): Route[] {
  return [
    {
      pattern: 'login',
      unauthenticated: true,
      unknownFields: 'reject',
      operations: {
        update: async (ctx) => {
          let roleName = '';
          try {
            return await login(ctx, (name) => (roleName = name));
          } catch (e) {
            const reason = ApiError.isApiError(e) ? e.errors.join('; ') : 'internal error';
            ctx.log.warn('cloud login refused', {
              role: roleName,
              reason,
              client_address: ctx.clientAddress,
              request_id: ctx.requestId,
            });
            throw e;
          }
        },
      },
    },
  ];

  async function login(ctx: RequestContext, named: (role: string) => void) {
    const { values } = requestFields(ctx, loginShape);
    const roleName = (values.role ?? '').trim();
    named(roleName);
    if (!roleName) throw Errors.badRequest('role is required (field "role")');
    const config = await state.config();
    const role = await state.role(roleName);
    if (!role) throw Errors.badRequest(`role ${JSON.stringify(roleName)} not found`);
    const jwt = (values.jwt ?? '').trim();
    if (!jwt) throw Errors.badRequest('jwt argument is required (field "jwt")');
    const client = state.clientFor(config);
    const now = ctx.clock.now();
    const verified = await verifyLoginJwt(jwt, role.type, roleName, client, now);
    if (role.token_bound_cidrs.length > 0 && !addressInCidrs(ctx.clientAddress, role.token_bound_cidrs)) {
      throw Errors.permissionDenied();
    }
    const login =
      role.type === 'iam' ? await loginIam(client, config, role, roleName, verified, now) : await loginVm(client, config, role, roleName, verified.computeEngine, verified.sub);
    return reply.login(login);
  }
}
