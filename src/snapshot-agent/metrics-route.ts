// The agent's GET /v1/sys/metrics route (metrics.ts has the figures): Prometheus text only, as
// Vault's `format=prometheus`. The token (X-Vault-Token, or a bearer as Prometheus sends it) is not
// looked up here: metrics.ts asks the managed server about it, or skips the check when the agent
// runs with --unauthenticated-metrics-access.

import { Readable } from 'node:stream';
import { reply } from '../engine/core/reply';
import type { Route } from '../engine/route-family';
import { Errors } from '../schema/errors';
import type { MetricsEndpoint } from './metrics';

export function metricsRoute(metrics: MetricsEndpoint): Route {
  return {
    pattern: 'sys/metrics',
    ignoresToken: true,
    forwardsToken: true,
    operations: {
      read: async (ctx) => {
        if (ctx.query.get('format') !== 'prometheus')
          throw Errors.badRequest('the snapshot agent serves its metrics as format=prometheus only: GET /v1/sys/metrics?format=prometheus');
        const text = await metrics.answer(ctx.callerToken);
        return reply.stream(Readable.from([Buffer.from(text)]), 'text/plain; version=0.0.4; charset=utf-8');
      },
    },
  };
}
