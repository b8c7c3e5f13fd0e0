// GET /v1/sys/metrics?format=prometheus on the agent, as Vault serves its telemetry: per config
// (label `config`) the last verified snapshot's time and size, the last attempt's duration, the
// consecutive errors and whether its backups are stale (staleness.ts). Token-checked against the
// managed server (read on sys/metrics, the path Vault checks) unless the agent was started with
// --unauthenticated-metrics-access (Vault's listener option of that name); the answer and each
// token's check are cached briefly, so a scrape every few seconds is not a server call each time.

import { createHash } from 'node:crypto';
import type { Clock } from '../engine/clock';
import type { SnapshotScheduler } from '../engine/snapshot/scheduler';
import { isStale } from '../engine/snapshot/staleness';
import { Errors } from '../schema/errors';
import type { AgentRecords } from './agent-records';
import type { ManagedServer } from './managed-server';
import { requireCapabilities } from './permissions';

/** How long a rendered answer and a token's check are reused. */
export const METRICS_CACHE_MS = 5_000;

export const METRICS = {
  keyward_snapshot_last_success_timestamp_seconds: 'Unix time of the last verified, stored snapshot (0: none yet).',
  keyward_snapshot_consecutive_errors: 'Attempts that failed (or were skipped) since the last verified snapshot.',
  keyward_snapshot_last_duration_seconds: 'Duration of the last attempt, successful or not.',
  keyward_snapshot_last_size_bytes: 'Size of the last verified, stored snapshot.',
  keyward_snapshot_stale: '1 when no verified snapshot was stored for more than two intervals.',
} as const;
type MetricName = keyof typeof METRICS;

export interface ConfigFigures {
  config: string;
  last_success_timestamp_seconds: number;
  consecutive_errors: number;
  last_duration_seconds: number;
  last_size_bytes: number;
  stale: boolean;
  last_success_url: string;
}

/** The figures of every config, from the stored status (the truth when several agents share a state). */
export async function configFigures(records: AgentRecords, scheduler: SnapshotScheduler, now: number): Promise<ConfigFigures[]> {
  const out: ConfigFigures[] = [];
  for (const name of (await records.listConfigs()).sort()) {
    let rec;
    try {
      rec = await records.getConfig(name);
    } catch {
      continue; // refused (unsealed) records are reported where they are read
    }
    if (!rec) continue;
    const s = (await records.getStatus(name)) ?? scheduler.status(name);
    const duration = s?.last_snapshot_end !== undefined && s.last_snapshot_start !== undefined ? (s.last_snapshot_end - s.last_snapshot_start) / 1000 : 0;
    out.push({
      config: name,
      last_success_timestamp_seconds: s?.last_success_end !== undefined ? Math.floor(s.last_success_end / 1000) : 0,
      consecutive_errors: s?.consecutive_errors ?? 0,
      last_duration_seconds: duration,
      last_size_bytes: s?.last_success_bytes ?? 0,
      stale: isStale(rec.config.interval, s, rec.written_at, now),
      last_success_url: s?.last_success_url ?? '',
    });
  }
  return out;
}

const label = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

export function renderPrometheus(figures: ConfigFigures[]): string {
  const value: Record<MetricName, (f: ConfigFigures) => number> = {
    keyward_snapshot_last_success_timestamp_seconds: (f) => f.last_success_timestamp_seconds,
    keyward_snapshot_consecutive_errors: (f) => f.consecutive_errors,
    keyward_snapshot_last_duration_seconds: (f) => f.last_duration_seconds,
    keyward_snapshot_last_size_bytes: (f) => f.last_size_bytes,
    keyward_snapshot_stale: (f) => (f.stale ? 1 : 0),
  };
  let text = '';
  for (const name of Object.keys(METRICS) as MetricName[]) {
    text += `# HELP ${name} ${METRICS[name]}\n# TYPE ${name} gauge\n`;
    for (const f of figures) text += `${name}{config="${label(f.config)}"} ${value[name](f)}\n`;
  }
  return text;
}

export interface MetricsEndpoint {
  /** The Prometheus text for a caller with `token` (throws 403 ApiError when refused). */
  answer(token: string | undefined): Promise<string>;
}

export function metricsEndpoint(d: { records: AgentRecords; scheduler: SnapshotScheduler; server: ManagedServer; clock: Clock; unauthenticated: boolean }): MetricsEndpoint {
  let cached: { at: number; text: string } | undefined;
  const allowed = new Map<string, number>();
  return {
    async answer(token) {
      const now = d.clock.now();
      if (!d.unauthenticated) {
        if (!token) throw Errors.permissionDenied();
        // Keyed by a hash: the cache holds no token.
        const key = createHash('sha256').update(token).digest('hex');
        if ((allowed.get(key) ?? -Infinity) <= now) {
          allowed.delete(key);
          await requireCapabilities(d.server, token, 'sys/metrics', 'read', false);
          for (const [k, until] of allowed) if (until <= now) allowed.delete(k);
          allowed.set(key, now + METRICS_CACHE_MS);
        }
      }
      if (!cached || now - cached.at >= METRICS_CACHE_MS) cached = { at: now, text: renderPrometheus(await configFigures(d.records, d.scheduler, now)) };
      return cached.text;
    },
  };
}
