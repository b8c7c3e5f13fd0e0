// Vault's plugin identity paths: the OpenID discovery document and the JWKS of a namespace's
// plugin identity issuer (unauthenticated, plain JSON, as Vault serves them), and rotation of the
// namespace's signing key (identity/oidc/key/default/rotate; the engine has only the default key).

import type { Route } from '../route-family';
import { reply } from '../core/reply';
import { requestFields } from '../core/request-fields';
import { Errors } from '../../schema/errors';
import { field } from '../../schema/fields';
import { DEFAULT_VERIFICATION_TTL_SECONDS, type PluginIdentity } from './plugin-identity';

export function pluginIdentityRoutes(identity: PluginIdentity): Route[] {
  return [
    {
      pattern: 'identity/oidc/plugins/.well-known/openid-configuration',
      unauthenticated: true,
      operations: {
        read: (ctx) => {
          const issuer = identity.issuer(ctx.namespace);
          return reply.plain(200, {
            issuer,
            jwks_uri: `${issuer}/.well-known/keys`,
            response_types_supported: ['id_token'],
            subject_types_supported: ['public'],
            id_token_signing_alg_values_supported: ['RS256'],
          });
        },
      },
    },
    {
      pattern: 'identity/oidc/plugins/.well-known/keys',
      unauthenticated: true,
      operations: { read: async (ctx) => reply.plain(200, await identity.jwks(ctx.namespace)) },
    },
    {
      pattern: 'identity/oidc/key/:name/rotate',
      unknownFields: 'reject',
      operations: {
        update: async (ctx) => {
          const { values } = requestFields(ctx, { verification_ttl: field.duration() });
          if (ctx.params.name !== 'default') {
            throw Errors.badRequest(`no named key ${JSON.stringify(ctx.params.name)}: the embedded engine signs plugin identity tokens with the "default" key only`);
          }
          const ttl = values.verification_ttl ?? DEFAULT_VERIFICATION_TTL_SECONDS;
          if (ttl < 0) throw Errors.badRequest('field "verification_ttl" must not be negative');
          await identity.rotate(ctx.namespace, ttl);
          return reply.none();
        },
      },
    },
  ];
}
