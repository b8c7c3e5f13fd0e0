// The agent's HTTP front: Vault's wire conventions (/v1/, X-Vault-Token, LIST or ?list=true, the
// response envelope, {"errors": [...]}) around handleAgentRequest, plus sys/health, which reports
// the managed server's health with `keyward_snapshot_agent: true` so clients know what they reach.

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Translator } from '../client/dialect';
import { frontForConnect, frontForRefusedMethod, methodsOf, movedToFront, noteAnswer } from '../engine/http/connection-front';
import { createListenerServer } from '../engine/http/listener';
import type { Logger } from '../engine/log';
import { ApiError, Errors } from '../schema/errors';
import { handleAgentRequest, type AgentApiDeps, type AgentRequest } from './api';
import type { MetricsEndpoint } from './metrics';
import { serveMetrics } from './metrics-route';

/** Config bodies are small; anything larger is refused before it is read whole. */
const MAX_BODY_BYTES = 1024 * 1024;

/** The health field telling clients they reach an agent (the snapshot-auto paths only). */
export const AGENT_HEALTH_FIELD = 'keyward_snapshot_agent';

function send(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_BODY_BYTES) throw Errors.payloadTooLarge(MAX_BODY_BYTES);
    chunks.push(c);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw Errors.malformedJson((e as Error).message);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw Errors.badRequest('the request body must be a JSON object');
  return parsed as Record<string, unknown>;
}

function methodOf(method: string, url: URL): AgentRequest['method'] | undefined {
  switch (method) {
    case 'LIST':
      return 'list';
    case 'GET':
      return ['true', '1'].includes(url.searchParams.get('list') ?? '') ? 'list' : 'read';
    case 'POST':
    case 'PUT':
      return 'write';
    case 'DELETE':
      return 'delete';
    default:
      return undefined;
  }
}

/** `tls`: serve HTTPS with this certificate and key (callers send their Vault tokens to the agent). */
export function createAgentHttpServer(deps: AgentApiDeps, translator: Translator, log: Logger, tls?: { cert: Buffer; key: Buffer }, metrics?: MetricsEndpoint): Server {
  const onRequest: RequestListener = (req, res) => {
    // Vault clients send LIST, which Node's parser refuses: the engine's connection front
    // re-frames such connections and keeps the original method.
    const verb = methodsOf(req.socket)?.shift() ?? req.method ?? 'GET';
    noteAnswer(req, res);
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://agent');
      const requestId = randomUUID();
      try {
        if (!url.pathname.startsWith('/v1/')) throw Errors.unsupportedPath();
        const path = url.pathname.slice('/v1/'.length);
        if (path === 'sys/health' && (verb === 'GET' || verb === 'HEAD')) {
          let h: { status: number; body: unknown };
          try {
            h = await deps.server.health(url.search);
          } catch (e) {
            // The agent is up; the server behind it is not: as a sealed or unreachable node, 503.
            return send(res, 503, { errors: [`the managed server ${deps.server.address} did not answer sys/health: ${(e as Error).message}`] });
          }
          const body = h.body && typeof h.body === 'object' ? { ...(h.body as Record<string, unknown>), [AGENT_HEALTH_FIELD]: true } : h.body;
          return send(res, h.status, verb === 'HEAD' ? undefined : body);
        }
        if (path === 'sys/metrics' && verb === 'GET' && metrics) return await serveMetrics(metrics, req, res, url);
        const method = methodOf(verb, url);
        if (!method) throw Errors.unsupportedOperation();
        const token = req.headers['x-vault-token'];
        const namespace = req.headers['x-vault-namespace'];
        const body = method === 'write' ? await readBody(req) : {};
        const r = await handleAgentRequest(deps, {
          method,
          path,
          token: typeof token === 'string' && token !== '' ? token : undefined,
          namespace: typeof namespace === 'string' ? namespace : undefined,
          body,
        });
        if (r.status === 204) return send(res, 204);
        send(res, r.status, {
          request_id: requestId,
          lease_id: '',
          renewable: false,
          lease_duration: 0,
          data: r.data ?? null,
          wrap_info: null,
          warnings: r.warnings ?? null,
          auth: null,
        });
      } catch (e) {
        if (ApiError.isApiError(e)) return send(res, e.status, { errors: translator.errorsToServer(e.errors) });
        // No request detail in the log: bodies may carry store credentials.
        log.error('agent request failed', { request_id: requestId, method: verb, path: url.pathname, error: (e as Error)?.message ?? String(e) });
        send(res, 500, { errors: ['internal error'] });
      }
    })();
  };
  const server = createListenerServer({}, onRequest, tls);
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (movedToFront(socket)) return;
    if (frontForRefusedMethod(server, err, socket)) return;
    socket.destroy();
  });
  server.on('connect', (req: IncomingMessage, socket, head: Buffer) => frontForConnect(server, req, socket, head));
  return server;
}
