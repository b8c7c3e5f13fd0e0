// The request pipeline, a function from EngineRequest to EngineResponse: namespace, routing, token,
// ACL, body, handler, envelope. Expected errors carry their status; anything else is logged and
// answered with a generic 500.

import { randomUUID } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import type { Operation, RequestContext, Route } from './route-family';
import type { Clock } from './clock';
import type { Logger } from './log';
import type { JsonStore } from './storage/json-store';
import { ApiError, Errors } from '../schema/errors';
import { addressInCidrs } from '../schema/cidr';
import { CLIENT_GONE, parseJsonObject, readBody } from './http/body';
import { jsonResponse, type EngineRequest, type EngineResponse } from './http/request';
import type { Reply } from './http/reply';
import { RouteTable } from './http/router';
import { canonicalPath } from './http/canonical-path';
import { Namespaces } from './namespace/namespaces';
import type { Mounts, LiveMount } from './mount/mounts';
import type { PolicyStore } from './policy/policy-store';
import type { TokenStore } from './token/token-store';
import type { TokenEntry } from './token/token-entry';
import type { IdentityStore } from './identity/identity-store';
import { issueLoginToken } from './token/login-issue';

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

interface Target {
  route: Route;
  params: Record<string, string>;
  path: string;
  storage: JsonStore;
  mount?: LiveMount;
}

function operationOf(method: string, query: URLSearchParams): Operation {
  switch (method) {
    case 'GET': {
      const list = query.get('list');
      if (list === null) return 'read';
      if (['true', '1', 't', 'TRUE', 'True', 'T'].includes(list)) return 'list';
      if (['false', '0', 'f', 'FALSE', 'False', 'F', ''].includes(list)) return 'read';
      throw Errors.badRequest(`invalid value for "list" query parameter: ${JSON.stringify(list)} (use true or false)`);
    }
    case 'LIST':
      return 'list';
    case 'POST':
    case 'PUT':
      return 'update';
    case 'DELETE':
      return 'delete';
    case 'HEAD':
      return 'read';
    default:
      throw Errors.unsupportedOperation();
  }
}

function tokenFrom(headers: EngineRequest['headers']): string | undefined {
  const v = headers['x-vault-token'];
  if (v && v.trim() !== '') return v.trim();
  const auth = headers['authorization'];
  const m = auth ? /^Bearer\s+(.+)$/i.exec(auth.trim()) : null;
  return m ? m[1].trim() : undefined;
}

/**
 * The body a raw handler reads: a pipe from the request, so a handler that stops reading or
 * destroys its stream leaves the connection intact, and a client that hangs up fails the stream.
 */
function rawStream(body: EngineRequest['body']): Readable {
  if (body === undefined || Buffer.isBuffer(body)) return Readable.from(body ? [body] : []);
  const out = new PassThrough();
  out.on('error', () => undefined); // the handler sees it through its own read; none may go unhandled
  body.once('error', () => out.destroy(new Error(CLIENT_GONE)));
  body.once('aborted', () => out.destroy(new Error(CLIENT_GONE)));
  return body.pipe(out);
}

/** Create and update share a handler when a route defines only one of them. */
function handlerFor(route: Route, op: Operation) {
  const ops = route.operations;
  if (op === 'create') return ops.create ?? ops.update;
  if (op === 'update') return ops.update ?? ops.create;
  return ops[op];
}

export class Core {
  private readonly mountTables = new WeakMap<LiveMount, RouteTable>();

  constructor(private readonly d: CoreDeps) {}

  async handle(req: EngineRequest): Promise<EngineResponse> {
    const requestId = randomUUID();
    try {
      return await this.dispatch(req, requestId);
    } catch (e) {
      if (ApiError.isApiError(e)) return jsonResponse(e.status, { errors: e.errors });
      // A client that hung up mid-body broke the request, not the engine.
      if (req.body && !Buffer.isBuffer(req.body) && req.body.destroyed && !req.body.readableEnded) {
        this.d.log.debug('client closed the connection before the request body was complete', { request_id: requestId });
        return jsonResponse(400, { errors: [CLIENT_GONE] });
      }
      this.d.log.error('request failed', { request_id: requestId, method: req.method, error: (e as Error)?.stack ?? String(e) });
      return jsonResponse(500, { errors: ['internal error'] });
    }
  }

  private async dispatch(req: EngineRequest, requestId: string): Promise<EngineResponse> {
    const q = req.url.indexOf('?');
    const rawPathname = q === -1 ? req.url : req.url.slice(0, q);
    const query = q === -1 ? new URLSearchParams() : new URLSearchParams(req.url.slice(q + 1));
    // Decoded once and clean, or redirected before anything looks at it (see canonical-path.ts).
    const canonical = canonicalPath(rawPathname, q === -1 ? undefined : req.url.slice(q + 1));
    if ('redirect' in canonical) return { status: 301, headers: { location: canonical.redirect, 'cache-control': 'no-store' } };
    const pathname = canonical.path;
    if (!pathname.startsWith('/v1/')) throw Errors.unsupportedPath();
    // An empty X-Vault-Wrap-TTL asks for nothing (Vault ignores it too).
    if ((req.headers['x-vault-wrap-ttl'] ?? '').trim() !== '') {
      throw Errors.badRequest('response wrapping is not supported: remove the X-Vault-Wrap-TTL header to get the response itself');
    }
    // Case-sensitive, as in Vault: "list" or "get" is an unknown method (405).
    const method = req.method;
    let operation = operationOf(method, query);
    const { namespace, path: nsPath } = this.d.namespaces.resolve(req.headers['x-vault-namespace'], pathname.slice(4));
    let path = nsPath;
    if (operation === 'list' && !path.endsWith('/')) path += '/';
    const tokenId = tokenFrom(req.headers);
    const target = this.route(namespace, path);

    // Authenticate before revealing whether a path exists.
    let token: TokenEntry | undefined;
    if (tokenId && !target?.route.ignoresToken) token = await this.d.tokens.lookup(tokenId);
    // Tokens die with the auth mount that issued them (Vault revokes them on disable).
    if (token?.mountAccessor && !this.d.mounts.byAccessorId(token.mountAccessor)) token = undefined;
    const needsToken = !target?.route.unauthenticated && !target?.route.ignoresToken;
    if (needsToken) {
      if (!token) throw Errors.permissionDenied();
      const owner = this.d.namespaces.byId(token.namespaceId);
      if (!owner || !Namespaces.covers(owner, namespace)) throw Errors.permissionDenied();
    }
    if (token && token.boundCidrs.length > 0 && !addressInCidrs(req.remoteAddress, token.boundCidrs)) {
      throw Errors.permissionDenied();
    }
    if (!target) throw Errors.unsupportedPath();
    if (!handlerFor(target.route, operation) || (method === 'HEAD' && !target.route.head)) throw Errors.unsupportedOperation();
    if ((operation === 'update' || operation === 'create') && path.endsWith('/') && !target.route.pattern.endsWith('/?')) {
      throw Errors.badRequest("cannot write to a path ending in '/'");
    }
    if (target.route.rootOnly && namespace.id !== 'root') throw Errors.namespaceUnavailable();

    let body: Record<string, unknown> = {};
    if (!target.route.raw) {
      // No body framing: nothing to read or parse (most GETs).
      if (req.body !== undefined) body = parseJsonObject(await readBody(req.body, this.d.maxBodyBytes));
      if (q !== -1 && (method === 'GET' || method === 'DELETE' || method === 'LIST')) {
        for (const [k, v] of query) if (k !== 'list' && !(k in body)) body[k] = v;
      }
    }
    const stream = target.route.raw ? rawStream(req.body) : undefined;
    const ctx: RequestContext = {
      operation,
      path: target.path,
      aclPath: path,
      params: target.params,
      body,
      stream,
      query,
      namespace,
      token,
      sudo: false,
      clientAddress: req.remoteAddress,
      warnings: [],
      storage: target.storage,
      clock: this.d.clock,
      log: this.d.log,
      requestId,
      unknownFields: target.route.unknownFields,
    };

    let revokeAfter = false;
    if (needsToken && token) {
      if (operation === 'update' && target.route.exists && !(await target.route.exists(ctx))) operation = 'create';
      ctx.operation = operation;
      const ownerNs = this.d.namespaces.byId(token.namespaceId)!;
      const aclPath = namespace.path.slice(ownerNs.path.length) + path;
      const acl = await this.d.policies.acl(ownerNs, token.policies);
      if (!acl.allows(operation, aclPath, { sudo: !!target.route.sudo })) throw Errors.permissionDenied();
      // Handlers that guard single fields more strictly than the path (engine-only endpoint overrides) ask this.
      ctx.sudo = acl.allows(operation, aclPath, { sudo: true });
      const use = await this.d.tokens.use(token);
      if (!use.ok) throw Errors.permissionDenied();
      revokeAfter = use.revokeAfter;
    }

    let result: Reply;
    try {
      result = (await handlerFor(target.route, operation)!(ctx)) ?? { kind: 'none' };
    } finally {
      // Whatever the handler left unread is the adapter's to drain; it must not reach a dead pipe.
      if (stream instanceof PassThrough && req.body && !Buffer.isBuffer(req.body)) req.body.unpipe(stream);
    }
    if (revokeAfter && token) await this.d.tokens.revoke(token);
    return this.respond(result, ctx, requestId, target.mount);
  }

  private route(namespace: { id: string; path: string }, path: string): Target | undefined {
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

  private async respond(r: Reply, ctx: RequestContext, requestId: string, mount?: LiveMount): Promise<EngineResponse> {
    const envelope = (data: unknown, auth: unknown = null, warnings: string[] = ctx.warnings) => ({
      request_id: requestId,
      lease_id: '',
      renewable: false,
      lease_duration: 0,
      data,
      wrap_info: null,
      warnings: warnings.length > 0 ? warnings : null,
      auth,
    });
    switch (r.kind) {
      case 'none':
        return ctx.warnings.length > 0 ? jsonResponse(200, envelope(null)) : { status: 204, headers: { 'cache-control': 'no-store' } };
      case 'data':
        return jsonResponse(r.status ?? 200, r.topLevel ? { ...(r.data as object), ...envelope(r.data) } : envelope(r.data));
      case 'dataJson': {
        // The envelope written around the ready text, in envelope()'s key order.
        const head = JSON.stringify({ request_id: requestId, lease_id: '', renewable: false, lease_duration: 0 }).slice(0, -1);
        const warnings = JSON.stringify(ctx.warnings.length > 0 ? ctx.warnings : null);
        return {
          status: 200,
          headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
          body: `${head},"data":${r.json},"wrap_info":null,"warnings":${warnings},"auth":null}\n`,
        };
      }
      case 'auth':
        return jsonResponse(200, envelope(null, r.auth));
      case 'plain':
        return jsonResponse(r.status, r.body);
      case 'stream':
        return {
          status: 200,
          headers: {
            'content-type': r.contentType,
            'cache-control': 'no-store',
            ...(r.filename ? { 'content-disposition': `attachment; filename="${r.filename}"` } : {}),
          },
          body: r.stream,
        };
      case 'login': {
        if (!mount) throw Errors.internal();
        const { auth, warnings } = await issueLoginToken(this.d, mount.info, r.login);
        return jsonResponse(200, envelope(null, auth, [...ctx.warnings, ...warnings]));
      }
    }
  }
}
