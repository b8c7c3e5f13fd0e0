// What terraform-provider-vault, the vault/bao CLIs and hvac call while configuring against any
// Vault address: auth/token/lookup-self, renew-self, create, and sys/seal-status (with sys/leader,
// which `vault status` / `bao status` read next). The agent holds
// no tokens, so these are the managed server's own answers to the caller's own token, passed on
// as they came (status and body), never cached. Nothing else is forwarded.

import type { Route, RequestContext } from '../engine/route-family';
import { reply } from '../engine/core/reply';
import { ApiError } from '../schema/errors';
import type { ManagedServer } from './managed-server';

async function forward(server: ManagedServer, method: 'GET' | 'POST', path: string, ctx: RequestContext) {
  try {
    const r = await server.forward({
      method,
      path,
      token: ctx.callerToken,
      namespace: ctx.namespace.id === 'root' ? undefined : ctx.namespace.path,
      body: method === 'POST' ? ctx.body : undefined,
    });
    return reply.plain(r.status, r.body);
  } catch (e) {
    // No answer from the server: not a refusal of the token, so not a 403.
    throw new ApiError('upstream', [`the managed server ${server.address} did not answer ${path}: ${(e as Error).message}`], 503);
  }
}

/** Token paths: relative to auth/token/ on the managed server, as the caller addressed them. */
const TOKEN_PATHS: { pattern: string; read: boolean; update: boolean }[] = [
  // Vault serves lookup-self on GET and POST, renew-self and create on POST/PUT.
  { pattern: 'auth/token/lookup-self', read: true, update: true },
  { pattern: 'auth/token/renew-self', read: false, update: true },
  { pattern: 'auth/token/create', read: false, update: true },
];

export function forwardedRoutes(server: ManagedServer): Route[] {
  const routes: Route[] = TOKEN_PATHS.map((p) => ({
    pattern: p.pattern,
    // The managed server decides about the token; the agent neither checks nor keeps it.
    ignoresToken: true,
    forwardsToken: true,
    operations: {
      ...(p.read ? { read: (ctx: RequestContext) => forward(server, 'GET', p.pattern, ctx) } : {}),
      ...(p.update ? { update: (ctx: RequestContext) => forward(server, 'POST', p.pattern, ctx) } : {}),
    },
  }));
  // `vault status` / `bao status` read sys/leader right after sys/seal-status and fail without it.
  // Both are unauthenticated in Vault and hold no secret: no token is sent on.
  for (const path of ['sys/seal-status', 'sys/leader'] as const) {
    routes.push({ pattern: path, ignoresToken: true, operations: { read: (ctx) => forward(server, 'GET', path, { ...ctx, callerToken: undefined }) } });
  }
  return routes;
}
