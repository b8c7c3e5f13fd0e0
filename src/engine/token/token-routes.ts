// auth/token/*: create, lookup, renew and revoke, for the caller's own token and for others.
// Renewal of a token issued by an auth method asks that method to re-check it first.

import type { RequestContext, Route } from '../route-family';
import type { Clock } from '../clock';
import type { Mounts } from '../mount/mounts';
import type { NamespaceRef } from '../route-family';
import { ApiError, Errors } from '../../schema/errors';
import { field } from '../../schema/fields';
import { canonicalCidr, CidrError } from '../../schema/cidr';
import { reply } from '../core/reply';
import { requestFields } from '../core/request-fields';
import { authBlock, tokenPolicies } from './auth-block';
import { issueTtl, renewTtl } from './lifetime';
import { withMountLimits } from '../mount/mount-tune';
import { tuneOf } from '../mount/mounts';
import type { TokenEntry } from './token-entry';
import type { TokenStore } from './token-store';

const createShape = {
  policies: field.commaList(),
  meta: field.kvMap(),
  no_parent: field.bool(),
  no_default_policy: field.bool(),
  renewable: field.bool(),
  ttl: field.duration(),
  type: field.string(),
  explicit_max_ttl: field.duration(),
  display_name: field.string(),
  num_uses: field.int(),
  period: field.duration(),
  bound_cidrs: field.commaList(),
};

export interface TokenRouteDeps {
  tokens: TokenStore;
  mounts: Mounts;
  clock: Clock;
  namespacePath: (id: string) => NamespaceRef | undefined;
}

export function lookupData(t: TokenEntry, now: number, nsPath: string, withId: boolean) {
  const remaining = t.expireTime > 0 ? Math.max(0, Math.floor((t.expireTime - now) / 1000)) : 0;
  return {
    accessor: t.accessor,
    creation_time: Math.floor(t.creationTime / 1000),
    creation_ttl: t.ttl,
    display_name: t.displayName,
    entity_id: t.entityId,
    expire_time: t.expireTime > 0 ? new Date(t.expireTime).toISOString() : null,
    explicit_max_ttl: t.explicitMaxTtl,
    id: withId ? t.id : '',
    issue_time: new Date(t.creationTime).toISOString(),
    meta: Object.keys(t.meta).length > 0 ? t.meta : null,
    num_uses: t.numUses,
    orphan: t.orphan,
    path: t.path,
    policies: t.policies,
    // Records written before root tokens were made non-renewable may still say so.
    renewable: t.renewable && t.expireTime > 0,
    ttl: remaining,
    type: t.type,
    namespace_path: nsPath,
    // node-vault-client computes a renewed token's expiry from these (Vault sends them once renewed).
    ...(t.lastRenewalTime ? { last_renewal_time: Math.floor(t.lastRenewalTime / 1000), last_renewal: new Date(t.lastRenewalTime).toISOString() } : {}),
    ...(t.period > 0 ? { period: t.period } : {}),
    ...(t.boundCidrs.length > 0 ? { bound_cidrs: t.boundCidrs } : {}),
  };
}

export function tokenRoutes(d: TokenRouteDeps): Route[] {
  const nsPath = (t: TokenEntry) => d.namespacePath(t.namespaceId)?.path ?? '';

  /** auth/token/create; `forceOrphan` for create-orphan (Vault's no_parent without asking). */
  const create = async (ctx: RequestContext, forceOrphan = false) => {
    const caller = ctx.token!;
    const { values: v } = requestFields(ctx, createShape);
    const type = v.type === undefined || v.type === '' || v.type === 'service' ? 'service' : v.type;
    if (type !== 'service' && type !== 'batch') throw Errors.badRequest(`invalid "type" value "${v.type}": use service or batch`);
    let policies = v.policies ? tokenPolicies(v.policies, !!v.no_default_policy) : caller.policies.filter((p) => p !== 'default' || !v.no_default_policy);
    if (!v.policies && !v.no_default_policy && !policies.includes('default') && !policies.includes('root')) policies = tokenPolicies(policies, false);
    if (policies.includes('root') && !caller.policies.includes('root')) {
      throw Errors.badRequest('root tokens may only be created by a root token');
    }
    if (type === 'batch' && (v.num_uses ?? 0) > 0) throw Errors.badRequest('batch tokens cannot have a use limit (num_uses)');
    if (type === 'batch' && (v.period ?? 0) > 0) throw Errors.badRequest('batch tokens cannot be periodic');
    if ((v.num_uses ?? 0) < 0) throw Errors.badRequest('num_uses cannot be negative');
    let boundCidrs: string[] = [];
    try {
      boundCidrs = (v.bound_cidrs ?? []).filter(Boolean).map(canonicalCidr);
    } catch (e) {
      if (e instanceof CidrError) throw Errors.badRequest(`bound_cidrs: ${e.message}`);
      throw e;
    }
    const isRoot = policies.length === 1 && policies[0] === 'root';
    const lifetime = { ttl: v.ttl ?? 0, maxTtl: 0, explicitMaxTtl: v.explicit_max_ttl ?? 0, period: v.period ?? 0 };
    const ttl = isRoot && !v.ttl && !v.period && !v.explicit_max_ttl ? 0 : issueTtl(lifetime).ttl;
    const orphan = forceOrphan || !!v.no_parent;
    const token = await d.tokens.create({
      type,
      policies,
      path: forceOrphan ? 'auth/token/create-orphan' : 'auth/token/create',
      meta: v.meta,
      displayName: `token${v.display_name ? `-${v.display_name}` : ''}`,
      namespaceId: ctx.namespace.id,
      numUses: v.num_uses ?? 0,
      ttl,
      explicitMaxTtl: lifetime.explicitMaxTtl,
      period: lifetime.period,
      boundCidrs,
      renewable: v.renewable ?? true,
      orphan,
      parentAccessor: orphan ? '' : caller.accessor,
      entityId: caller.entityId,
    });
    return reply.auth(authBlock(token));
  };

  const renew = async (ctx: RequestContext, t: TokenEntry) =>
    renewBy(ctx, t, (requestFields(ctx, { increment: field.duration(), token: field.secretString() }).values.increment as number | undefined) ?? 0);

  const renewBy = async (ctx: RequestContext, t: TokenEntry, increment: number) => {
    if (t.type === 'batch') throw Errors.badRequest('batch tokens cannot be renewed');
    if (t.expireTime === 0) throw Errors.badRequest('lease is not renewable: the token has no TTL (root tokens never expire)');
    if (!t.renewable) throw Errors.badRequest('lease is not renewable');
    let settings = { ttl: t.ttl, maxTtl: t.maxTtl, period: t.period };
    if (t.mountAccessor) {
      const mount = d.mounts.byAccessorId(t.mountAccessor);
      if (!mount) throw Errors.badRequest('the auth method that issued this token is no longer mounted');
      if (mount.method.renew) {
        try {
          settings = await mount.method.renew({ token: t, storage: mount.storage, clock: d.clock, log: ctx.log });
          settings = withMountLimits({ ...settings, explicitMaxTtl: t.explicitMaxTtl }, tuneOf(mount.entry));
        } catch (e) {
          if (ApiError.isApiError(e))
            throw new ApiError(
              e.code,
              e.errors.map((m) => `renewal refused: ${m}`),
              e.status,
            );
          throw e;
        }
      }
    }
    const wanted = increment > 0 ? increment : settings.period > 0 ? settings.period : settings.ttl;
    const ttl = renewTtl({ ...settings, explicitMaxTtl: t.explicitMaxTtl }, t.creationTime, d.clock.now(), increment);
    if (ttl <= 0) throw Errors.badRequest('the token has reached its maximum TTL and cannot be renewed');
    if (wanted > 0 && ttl < wanted) ctx.warnings.push(`TTL of ${wanted}s exceeded the effective max TTL; TTL is capped at ${ttl}s`);
    const next = await d.tokens.extend(t, ttl, settings);
    return reply.auth({ ...authBlock(next), lease_duration: ttl });
  };

  /** The token named in the body; undefined when unknown (each route answers that as Vault does). */
  const target = async (ctx: RequestContext): Promise<TokenEntry | undefined> => {
    const id = requestFields(ctx, { token: field.secretString(), increment: field.duration() }).values.token;
    if (!id) throw Errors.badRequest('the "token" field is required');
    return d.tokens.lookup(id);
  };
  const accessorTarget = async (ctx: RequestContext): Promise<TokenEntry> => byAccessor(requestFields(ctx, { accessor: field.string() }).values.accessor);
  const byAccessor = async (accessor: string | undefined): Promise<TokenEntry> => {
    if (!accessor) throw Errors.badRequest('the "accessor" field is required');
    const t = await d.tokens.lookupAccessor(accessor);
    if (!t) throw Errors.badRequest('invalid accessor');
    return t;
  };

  return [
    { pattern: 'create', sudo: true, operations: { update: (ctx) => create(ctx) } },
    // Vault needs no sudo here but then limits the policies to the caller's; sudo keeps one rule.
    { pattern: 'create-orphan', sudo: true, operations: { update: (ctx) => create(ctx, true) } },
    { pattern: 'lookup-self', operations: { read: (ctx) => reply.data(lookupData(ctx.token!, d.clock.now(), nsPath(ctx.token!), true)) } },
    { pattern: 'renew-self', operations: { update: (ctx) => renew(ctx, ctx.token!) } },
    { pattern: 'revoke-self', operations: { update: async (ctx) => void (await d.tokens.revoke(ctx.token!)) } },
    {
      pattern: 'lookup',
      operations: {
        update: async (ctx) => {
          // Vault's token store looks up the caller's own token when the body names none (renew and
          // revoke do not: they require it); measured on OpenBao 2.7 as well.
          const named = requestFields(ctx, { token: field.secretString(), increment: field.duration() }).values.token;
          const t = named ? await target(ctx) : ctx.token!;
          if (!t) throw new ApiError('permission_denied', ['bad token']);
          return reply.data(lookupData(t, d.clock.now(), nsPath(t), true));
        },
      },
    },
    {
      pattern: 'renew',
      operations: {
        update: async (ctx) => {
          const t = await target(ctx);
          if (!t) throw Errors.badRequest('token not found');
          return renew(ctx, t);
        },
      },
    },
    {
      pattern: 'revoke',
      operations: {
        update: async (ctx) => {
          const t = await target(ctx);
          if (!t) return; // Unknown or already revoked: nothing to do (Vault answers 204).
          if (t.type === 'batch') throw Errors.badRequest('batch tokens cannot be revoked; they expire at the end of their TTL');
          await d.tokens.revoke(t);
        },
      },
    },
    {
      pattern: 'revoke-orphan',
      sudo: true,
      operations: {
        update: async (ctx) => {
          const t = await target(ctx);
          if (!t) return; // as revoke: nothing to do
          if (t.type === 'batch') throw Errors.badRequest('batch tokens cannot be revoked; they expire at the end of their TTL');
          await d.tokens.revokeOrphan(t);
        },
      },
    },
    {
      pattern: 'lookup-accessor',
      operations: {
        update: async (ctx) => {
          const t = await accessorTarget(ctx);
          return reply.data(lookupData(t, d.clock.now(), nsPath(t), false));
        },
      },
    },
    { pattern: 'revoke-accessor', operations: { update: async (ctx) => void (await d.tokens.revoke(await accessorTarget(ctx))) } },
    {
      // Renewal by accessor: the token found carries no id, so the answer's client_token is empty
      // (an accessor never reveals its token), as in Vault.
      pattern: 'renew-accessor',
      operations: {
        update: async (ctx) => {
          const { values } = requestFields(ctx, { accessor: field.string(), increment: field.duration() });
          return renewBy(ctx, await byAccessor(values.accessor), (values.increment as number | undefined) ?? 0);
        },
      },
    },
    {
      // Vault: sudo, the live service tokens of the request's namespace; 404 when there are none.
      pattern: 'accessors/?',
      sudo: true,
      operations: {
        list: async (ctx) => {
          const keys = await d.tokens.listAccessors(ctx.namespace.id);
          if (keys.length === 0) throw Errors.notFound();
          return reply.data({ keys });
        },
      },
    },
  ];
}
