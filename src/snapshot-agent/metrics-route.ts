// The agent's GET /v1/sys/metrics route (metrics.ts has the figures): Prometheus text only, as
// Vault's `format=prometheus`; the token from X-Vault-Token or, as Prometheus sends it, a bearer.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { Errors } from '../schema/errors';
import type { MetricsEndpoint } from './metrics';

export async function serveMetrics(metrics: MetricsEndpoint, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  if (url.searchParams.get('format') !== 'prometheus')
    throw Errors.badRequest('the snapshot agent serves its metrics as format=prometheus only: GET /v1/sys/metrics?format=prometheus');
  const header = req.headers['x-vault-token'];
  const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const token = typeof header === 'string' && header !== '' ? header : bearer;
  const text = await metrics.answer(token);
  res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' }).end(text);
}
