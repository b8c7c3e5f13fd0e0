// The agent's HTTP front: the engine's request core (engine/core/pipeline.ts) over the agent's
// route table (api.ts), served by the engine's Node adapter (so the same framing, LIST, HEAD,
// refusals, timeouts and connection cap). The agent's gate: no namespaces beyond root, and who may
// do what is the managed server's decision, asked with the caller's own token.

import type { Server } from 'node:http';
import type { Translator } from '../client/dialect';
import { RequestCore, type Caller, type Gate, type Target } from '../engine/core/pipeline';
import { RouteTable } from '../engine/core/router';
import { createHttpServer } from '../engine/node-adapter/adapter';
import type { ListenerOptions } from '../engine/node-adapter/listener';
import type { Clock } from '../engine/clock';
import type { Logger } from '../engine/log';
import type { NamespaceRef, RequestContext, Route } from '../engine/route-family';
import { JsonStore } from '../engine/storage/json-store';
import { MemoryStorage } from '../engine/storage/memory';
import { Errors } from '../schema/errors';
import { agentRoutes, type AgentApiDeps } from './api';
import type { ManagedServer } from './managed-server';
import { requireCapabilities } from './permissions';

/** Config bodies are small; anything larger is refused before it is read whole. */
const MAX_BODY_BYTES = 1024 * 1024;

const ROOT: NamespaceRef = { id: 'root', path: '' };

class AgentGate implements Gate {
  private readonly table: RouteTable;
  /**
   * The agent's routes keep their data in --state through their own deps; the per-family
   * storage the core hands every handler is this empty view, which no agent route reads.
   */
  private readonly noStorage = new JsonStore(new MemoryStorage());

  constructor(
    routes: Route[],
    private readonly server: ManagedServer,
    private readonly translator: Translator,
  ) {
    this.table = new RouteTable(routes);
  }

  locate(namespaceHeader: string | undefined, path: string) {
    // snapshot-auto is root-namespace only, on Enterprise as on the engine: another namespace is
    // passed on as named, so root-only routes refuse it and forwarded ones send it along.
    const ns = (namespaceHeader ?? '').trim().replace(/^\/+|\/+$/g, '');
    return { namespace: ns === '' || ns === 'root' ? ROOT : { id: `ns:${ns}`, path: `${ns}/` }, path };
  }

  route(_namespace: NamespaceRef, path: string): Target | undefined {
    const m = this.table.match(path);
    return m && { route: m.route, params: m.params, path, storage: this.noStorage };
  }

  async authenticate(tokenId: string | undefined, _t: Target | undefined, _ns: NamespaceRef, _addr: string, needsToken: boolean): Promise<Caller> {
    // The token itself is judged by the managed server in authorize(), once the path is known.
    if (needsToken && !tokenId) throw Errors.permissionDenied();
    return { tokenId };
  }

  async authorize(caller: Caller, ctx: RequestContext, route: Route): Promise<{ sudo: boolean }> {
    await requireCapabilities(this.server, caller.tokenId, ctx.aclPath, ctx.operation, !!route.sudo);
    return { sudo: !!route.sudo };
  }

  errorsToClient(errors: string[]): string[] {
    return this.translator.errorsToServer(errors);
  }
}

/** `tls`: serve HTTPS with this certificate and key (callers send their Vault tokens to the agent). */
export function createAgentHttpServer(deps: AgentApiDeps, o: { clock: Clock; log: Logger; listener?: ListenerOptions; tls?: { cert: Buffer; key: Buffer } }): Server {
  const core = new RequestCore(new AgentGate(agentRoutes(deps), deps.server, deps.translator), { clock: o.clock, log: o.log, maxBodyBytes: MAX_BODY_BYTES });
  return createHttpServer(core, o.log, o.listener, o.tls);
}
