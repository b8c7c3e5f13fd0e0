// Unauthenticated status endpoints (sys/health, sys/seal-status) and the edition report
// (sys/license/status), shaped like Vault's.

import type { Edition, Route } from '../route-family';
import type { Clock } from '../clock';
import { reply } from '../core/reply';
import { healthStatus } from './health-query';

export const ENGINE_VERSION = '1.19.0+keyward';

export interface StatusInfo {
  edition: Edition;
  clusterName: string;
  clusterId: string;
  startedAt: number;
  clock: Clock;
}

export function statusRoutes(s: StatusInfo): Route[] {
  const enterprise = s.edition !== 'oss';
  return [
    {
      pattern: 'sys/health',
      unauthenticated: true,
      ignoresToken: true,
      head: true,
      operations: {
        read: (ctx) =>
          reply.plain(healthStatus(ctx.query), {
            initialized: true,
            sealed: false,
            standby: false,
            performance_standby: false,
            replication_performance_mode: 'disabled',
            replication_dr_mode: 'disabled',
            server_time_utc: Math.floor(s.clock.now() / 1000),
            version: ENGINE_VERSION,
            enterprise,
            cluster_name: s.clusterName,
            cluster_id: s.clusterId,
          }),
      },
    },
    {
      pattern: 'sys/seal-status',
      unauthenticated: true,
      ignoresToken: true,
      operations: {
        read: () =>
          reply.plain(200, {
            type: 'shamir',
            initialized: true,
            sealed: false,
            t: 1,
            n: 1,
            progress: 0,
            nonce: '',
            version: ENGINE_VERSION,
            build_date: '2026-01-01T00:00:00Z',
            migration: false,
            cluster_name: s.clusterName,
            cluster_id: s.clusterId,
            recovery_seal: false,
            storage_type: 'raft',
          }),
      },
    },
    {
      pattern: 'sys/license/status',
      operations: {
        read: () =>
          reply.data({
            edition: s.edition,
            autoloading_used: enterprise,
            autoloaded: enterprise
              ? {
                  license_id: `keyward-${s.edition}`,
                  product: 'vault',
                  edition: s.edition,
                  features: s.edition === 'plus' ? ['Automated Snapshots', 'Namespaces', 'HCP'] : ['Automated Snapshots', 'Namespaces'],
                  start_time: new Date(s.startedAt).toISOString(),
                  expiration_time: '2100-01-01T00:00:00Z',
                  termination_time: '2100-01-01T00:00:00Z',
                  performance_standby_count: 0,
                }
              : null,
          }),
      },
    },
  ];
}
