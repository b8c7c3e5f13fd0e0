// The engine's side of the request core: namespaces, its route families (system paths, the token
// store, auth mounts), its token store and ACL policies, and login token issuing. The pipeline
// itself (routing, body, envelope, error mapping) is pipeline.ts, shared with the snapshot agent.

import type { Clock } from '../clock';
import type { Logger } from '../log';
import type { JsonStore } from '../storage/json-store';
import type { NamespaceRef, RequestContext, Route } from '../route-family';
import { Errors } from '../../schema/errors';
import { addressInCidrs } from '../../schema/cidr';
import type { EngineRequest, EngineResponse } from './request';
import { RouteTable } from './router';
import { RequestCore, type Caller, type Gate, type Target } from './pipeline';
import { Namespaces } from '../namespace/namespaces';
import type { Mounts, LiveMount } from '../mount/mounts';
import type { PolicyStore } from '../policy/policy-store';
import type { TokenStore } from '../token/token-store';
import type { TokenEntry } from '../token/token-entry';
import type { IdentityStore } from '../identity/identity-store';
import type { LoginResult } from '../token/login-result';
import { issueLoginToken } from '../token/login-issue';

export interface CoreDeps {
  clock: Clock;
  log: Logger;
  namespaces: Namespaces;
  mounts: Mounts;
  tokens: TokenStore;
  policies: PolicyStore;
  identity: IdentityStore;
  rootStore: JsonStore;
  /** Namespace-relative system paths (sys/..., identity/...). */
  systemRoutes: () => RouteTable;
  /** Paths under auth/token/. */
  tokenRoutes: RouteTable;
  maxBodyBytes: number;
}

class EngineGate implements Gate {
  private readonly mountTables = new WeakMap<LiveMount, RouteTable>();

  constructor(private readonly d: CoreDeps) {}

  locate(namespaceHeader: string | undefined, path: string) {
    return this.d.namespaces.resolve(namespaceHeader, path);
  }

  route(namespace: NamespaceRef, path: string): Target | undefined {
    if (path.startsWith('auth/token/') || path === 'auth/token') {
      const m = this.d.tokenRoutes.match(path.slice('auth/token/'.length));
      return m && { route: m.route, params: m.params, path: path.slice('auth/token/'.length), storage: this.d.rootStore.sub('sys/token/') };
    }
    if (path.startsWith('auth/')) {
      const found = this.d.mounts.find(namespace, path.slice(5));
      if (!found) return undefined;
      let table = this.mountTables.get(found.mount);
      if (!table) this.mountTables.set(found.mount, (table = new RouteTable(found.mount.method.routes)));
      const m = table.match(found.path);
      return m && { route: m.route, params: m.params, path: found.path, storage: found.mount.storage, mount: found.mount };
    }
    const m = this.d.systemRoutes().match(path);
    // Fields named one by one, not `{ ...m, path }`: V8 gives a spread followed by a property a
    // fresh hidden class on every call (about a microsecond, and megamorphic code after it).
    return m && { route: m.route, params: m.params, path, storage: this.d.rootStore };
  }

  async authenticate(tokenId: string | undefined, _target: Target | undefined, namespace: NamespaceRef, remoteAddress: string, needsToken: boolean): Promise<Caller> {
    let token: TokenEntry | undefined;
    if (tokenId) token = await this.d.tokens.lookup(tokenId);
    // Tokens die with the auth mount that issued them (Vault revokes them on disable).
    if (token?.mountAccessor && !this.d.mounts.byAccessorId(token.mountAccessor)) token = undefined;
    if (needsToken) {
      if (!token) throw Errors.permissionDenied();
      const owner = this.d.namespaces.byId(token.namespaceId);
      if (!owner || !Namespaces.covers(owner, namespace)) throw Errors.permissionDenied();
    }
    if (token && token.boundCidrs.length > 0 && !addressInCidrs(remoteAddress, token.boundCidrs)) throw Errors.permissionDenied();
    return { token };
  }

  async authorize(caller: Caller, ctx: RequestContext, route: Route): Promise<{ sudo: boolean; revokeAfter?: boolean }> {
    const token = caller.token!;
    const ownerNs = this.d.namespaces.byId(token.namespaceId)!;
    const aclPath = ctx.namespace.path.slice(ownerNs.path.length) + ctx.aclPath;
    const acl = await this.d.policies.acl(ownerNs, token.policies);
    if (!acl.allows(ctx.operation, aclPath, { sudo: !!route.sudo })) throw Errors.permissionDenied();
    const sudo = acl.allows(ctx.operation, aclPath, { sudo: true });
    const use = await this.d.tokens.use(token);
    if (!use.ok) throw Errors.permissionDenied();
    return { sudo, revokeAfter: use.revokeAfter };
  }

  async revoke(caller: Caller): Promise<void> {
    if (caller.token) await this.d.tokens.revoke(caller.token);
  }

  login(mount: LiveMount, login: LoginResult) {
    return issueLoginToken(this.d, mount.info, login);
  }
}

/** The engine's request→response function: the shared pipeline behind the engine's gate. */
export class Core {
  private readonly pipeline: RequestCore;

  constructor(d: CoreDeps) {
    this.pipeline = new RequestCore(new EngineGate(d), d);
  }

  handle(req: EngineRequest): Promise<EngineResponse> {
    return this.pipeline.handle(req);
  }
}
