// The request core, a function from EngineRequest to EngineResponse shared by the engine and the
// snapshot agent (as hono's core is shared by its adapters): path canonicalisation, the operation,
// routing through a route table, the body, the handler, the Vault envelope, and error mapping
// (expected errors carry their status; anything else is logged and hidden behind a 500). Who the
// caller is and what they may do is the Gate's: the engine's token store and ACLs, or the managed
// server's own answer for the agent. No socket code here: that is src/engine/node-adapter/.

import { randomUUID } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import type { Clock } from '../clock';
import type { Logger } from '../log';
import type { JsonStore } from '../storage/json-store';
import type { LiveMount } from '../mount/mounts';
import type { NamespaceRef, Operation, RequestContext, Route } from '../route-family';
import type { TokenEntry } from '../token/token-entry';
import type { LoginResult } from '../token/login-result';
import { ApiError, Errors } from '../../schema/errors';
import { CLIENT_GONE, parseJsonObject, readBody } from './body';
import { canonicalPath } from './canonical-path';
import { jsonResponse, type EngineRequest, type EngineResponse } from './request';
import type { Reply } from './reply';

/** A matched route with the storage and mount its family works in. */
export interface Target {
  route: Route;
  params: Record<string, string>;
  /** Path relative to the route family. */
  path: string;
  storage: JsonStore;
  mount?: LiveMount;
}

/** Who is calling, as the gate established it before routing revealed anything. */
export interface Caller {
  /** The token's raw id as sent (only forwarded, by routes marked forwardsToken; never logged). */
  tokenId?: string;
  /** The engine's record of the token (the engine's gate only). */
  token?: TokenEntry;
}

/** What differs between servers using the core: namespaces, routing, authentication, ACLs, logins. */
export interface Gate {
  /** The namespace a request addresses and its path relative to it (`path` is after /v1/). */
  locate(namespaceHeader: string | undefined, path: string): { namespace: NamespaceRef; path: string };
  route(namespace: NamespaceRef, path: string): Target | undefined;
  /**
   * Authenticates before revealing whether a path exists; throws 403 when `needsToken` and the
   * token is missing or not valid here.
   */
  authenticate(tokenId: string | undefined, target: Target | undefined, namespace: NamespaceRef, remoteAddress: string, needsToken: boolean): Promise<Caller>;
  /**
   * Throws 403 unless the caller may do ctx.operation on ctx.aclPath (sudo too when the route
   * asks); returns whether the caller holds sudo there and whether to revoke the token afterwards
   * (its last use).
   */
  authorize(caller: Caller, ctx: RequestContext, route: Route): Promise<{ sudo: boolean; revokeAfter?: boolean }>;
  /** Revokes a token after its last permitted use. */
  revoke?(caller: Caller): Promise<void>;
  /** Issues the token for a successful login on `mount` (servers with auth methods). */
  login?(mount: LiveMount, login: LoginResult): Promise<{ auth: unknown; warnings: string[] }>;
  /** The errors as the client's dialect names things (the agent in front of Vault); identity otherwise. */
  errorsToClient?(errors: string[]): string[];
}

export interface PipelineOptions {
  clock: Clock;
  log: Logger;
  maxBodyBytes: number;
}

const LIST_TRUE = ['true', '1', 't', 'TRUE', 'True', 'T'];
const LIST_FALSE = ['false', '0', 'f', 'FALSE', 'False', 'F', ''];

/** Vault's operation for a method (and `?list=`, parsed as Go's strconv.ParseBool). */
export function operationOf(method: string, query: URLSearchParams): Operation {
  switch (method) {
    case 'GET': {
      const list = query.get('list');
      if (list === null) return 'read';
      if (LIST_TRUE.includes(list)) return 'list';
      if (LIST_FALSE.includes(list)) return 'read';
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

export class RequestCore {
  constructor(
    private readonly gate: Gate,
    private readonly o: PipelineOptions,
  ) {}

  async handle(req: EngineRequest): Promise<EngineResponse> {
    const requestId = randomUUID();
    try {
      return await this.dispatch(req, requestId);
    } catch (e) {
      if (ApiError.isApiError(e)) return jsonResponse(e.status, { errors: this.gate.errorsToClient ? this.gate.errorsToClient(e.errors) : e.errors });
      // A client that hung up mid-body broke the request, not the server.
      if (req.body && !Buffer.isBuffer(req.body) && req.body.destroyed && !req.body.readableEnded) {
        this.o.log.debug('client closed the connection before the request body was complete', { request_id: requestId });
        return jsonResponse(400, { errors: [CLIENT_GONE] });
      }
      // No request detail beyond the method: bodies may carry credentials.
      this.o.log.error('request failed', { request_id: requestId, method: req.method, error: (e as Error)?.stack ?? String(e) });
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
    const { namespace, path: nsPath } = this.gate.locate(req.headers['x-vault-namespace'], pathname.slice(4));
    let path = nsPath;
    if (operation === 'list' && !path.endsWith('/')) path += '/';
    const target = this.gate.route(namespace, path);

    // Authenticate before revealing whether a path exists.
    const needsToken = !target?.route.unauthenticated && !target?.route.ignoresToken;
    const tokenId = target?.route.ignoresToken && !target.route.forwardsToken ? undefined : tokenFrom(req.headers);
    const caller = await this.gate.authenticate(tokenId, target, namespace, req.remoteAddress, needsToken);
    if (!target) throw Errors.unsupportedPath();
    if (!handlerFor(target.route, operation) || (method === 'HEAD' && !target.route.head)) throw Errors.unsupportedOperation();
    if ((operation === 'update' || operation === 'create') && path.endsWith('/') && !target.route.pattern.endsWith('/?')) {
      throw Errors.badRequest("cannot write to a path ending in '/'");
    }
    if (target.route.rootOnly && namespace.id !== 'root') throw Errors.namespaceUnavailable();

    let body: Record<string, unknown> = {};
    if (!target.route.raw) {
      // No body framing: nothing to read or parse (most GETs).
      if (req.body !== undefined) body = parseJsonObject(await readBody(req.body, this.o.maxBodyBytes));
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
      token: caller.token,
      callerToken: target.route.forwardsToken ? tokenId : undefined,
      sudo: false,
      clientAddress: req.remoteAddress,
      warnings: [],
      storage: target.storage,
      clock: this.o.clock,
      log: this.o.log,
      requestId,
      unknownFields: target.route.unknownFields,
    };

    let revokeAfter = false;
    if (needsToken) {
      if (operation === 'update' && target.route.exists && !(await target.route.exists(ctx))) operation = 'create';
      ctx.operation = operation;
      const granted = await this.gate.authorize(caller, ctx, target.route);
      // Handlers that guard single fields more strictly than the path (engine-only endpoint overrides) ask this.
      ctx.sudo = granted.sudo;
      revokeAfter = granted.revokeAfter === true;
    }

    let result: Reply;
    try {
      result = (await handlerFor(target.route, operation)!(ctx)) ?? { kind: 'none' };
    } finally {
      // Whatever the handler left unread is the adapter's to drain; it must not reach a dead pipe.
      if (stream instanceof PassThrough && req.body && !Buffer.isBuffer(req.body)) req.body.unpipe(stream);
    }
    if (revokeAfter) await this.gate.revoke?.(caller);
    return this.respond(result, ctx, requestId, target.mount);
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
        // A 204 (or any answer without a body) is passed on as it came.
        return r.body === undefined ? { status: r.status, headers: { 'cache-control': 'no-store' } } : jsonResponse(r.status, r.body);
      case 'stream':
      case 'file':
        return {
          status: 200,
          headers: {
            'content-type': r.contentType,
            'cache-control': 'no-store',
            ...(r.filename ? { 'content-disposition': `attachment; filename="${r.filename}"` } : {}),
          },
          body: r.kind === 'stream' ? r.stream : r.file,
        };
      case 'login': {
        if (!mount || !this.gate.login) throw Errors.internal();
        const { auth, warnings } = await this.gate.login(mount, r.login);
        return jsonResponse(200, envelope(null, auth, [...ctx.warnings, ...warnings]));
      }
    }
  }
}
