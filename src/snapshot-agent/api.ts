// The agent's route table: snapshot-auto through the engine's own routes (engine/snapshot/
// config-routes.ts), in the managed server's dialect and by Vault Enterprise's rules; its
// sys/health (the managed server's, marked as an agent); and the few token and seal paths every
// Vault client calls while configuring, forwarded (forwarded-routes.ts). Anything else is 404.

import type { Translator } from '../client/dialect';
import type { Route } from '../engine/route-family';
import { reply } from '../engine/core/reply';
import { configRoutes } from '../engine/snapshot/config-routes';
import type { SnapshotScheduler } from '../engine/snapshot/scheduler';
import type { AgentRecords } from './agent-records';
import { forwardedRoutes } from './forwarded-routes';
import { agentWire } from './vault-shapes';
import type { ManagedServer } from './managed-server';
import type { MetricsEndpoint } from './metrics';
import { metricsRoute } from './metrics-route';

/** The health field telling clients they reach an agent (the snapshot-auto paths only). */
export const AGENT_HEALTH_FIELD = 'keyward_snapshot_agent';

export interface AgentApiDeps {
  records: AgentRecords;
  scheduler: SnapshotScheduler;
  server: ManagedServer;
  translator: Translator;
  now: () => number;
  /** GET sys/metrics?format=prometheus (metrics.ts); absent: no metrics route. */
  metrics?: MetricsEndpoint;
}

function healthRoute(d: AgentApiDeps): Route {
  return {
    pattern: 'sys/health',
    ignoresToken: true,
    head: true,
    operations: {
      read: async (ctx) => {
        const q = ctx.query.toString();
        let h: { status: number; body: unknown };
        try {
          h = await d.server.health(q === '' ? '' : `?${q}`);
        } catch (e) {
          // The agent is up; the server behind it is not: as a sealed or unreachable node, 503.
          return reply.plain(503, { errors: [`the managed server ${d.server.address} did not answer sys/health: ${(e as Error).message}`] });
        }
        const body = h.body && typeof h.body === 'object' ? { ...(h.body as Record<string, unknown>), [AGENT_HEALTH_FIELD]: true } : h.body;
        return reply.plain(h.status, body);
      },
    },
  };
}

export function agentRoutes(d: AgentApiDeps): Route[] {
  return [
    ...configRoutes({
      records: d.records,
      scheduler: d.scheduler,
      engineRules: false,
      wire: agentWire(d.translator),
      refuseAutoload:
        'autoload_enabled cannot be true here: loading a snapshot automatically is a Vault Enterprise feature (1.21+) that Vault Community and OpenBao lack, and the snapshot agent cannot do it for them; set autoload_enabled to false or leave it out',
      storedStatusFirst: true,
      now: d.now,
    }),
    healthRoute(d),
    ...(d.metrics ? [metricsRoute(d.metrics)] : []),
    ...forwardedRoutes(d.server),
  ];
}
