// Making a plan: read the live state in scope, diff it with the desired state and the
// last-applied record, and stamp it with the digest of what was read.

import { createHash } from 'node:crypto';
import type { ServerDialect } from '../client/dialect/server-dialect';
import type { VaultClient } from '../client/vault-client';
import type { DesiredState } from './desired';
import { diff } from './diff';
import { liveDigest, readLive, type LiveState, type ReadOptions } from './live';
import { withMeanings } from './meaning';
import { stableJson, summarize, type Plan } from './model';
import type { LastApplied } from './record';
import { withRoleServerRules } from './server-rules';

export interface PlanResult {
  plan: Plan;
  live: LiveState;
}

export async function makePlan(client: VaultClient, desired: DesiredState, record: LastApplied, opts: ReadOptions = {}): Promise<PlanResult> {
  const live = await readLive(client, desired, record, opts);
  return {
    plan: planFrom(
      desired,
      live,
      record,
      {
        address: client.address,
        namespace: client.namespace,
        snapshotAddress: client.snapshotAddress === client.address ? undefined : client.snapshotAddress,
      },
      await client.dialect(),
    ),
    live,
  };
}

/** The pure part: a plan from states already read. */
export function planFrom(desired: DesiredState, live: LiveState, record: LastApplied, server: Plan['server'], dialect: ServerDialect = 'keyward'): Plan {
  const { objects, drift } = diff(desired, live, record);
  const plan: Plan = {
    formatVersion: 1,
    server: {
      address: server.address,
      ...(server.namespace ? { namespace: server.namespace } : {}),
      ...(server.snapshotAddress ? { snapshotAddress: server.snapshotAddress } : {}),
    },
    objects,
    drift,
    summary: summarize(objects),
    liveDigest: combinedDigest(liveDigest(live), record),
  };
  const fieldsOf = (id: string) => ({ before: live.objects.get(id)?.fields ?? record.objects[id]?.fields, after: desired.objects.get(id)?.fields });
  // What the server's rules say (a change it accepts but cannot honour is planned, labelled, refused at apply) and what
  // each change means for access and backups (a vm role's `*` differs between Vault and the engine).
  return withMeanings(withRoleServerRules(plan, fieldsOf, dialect), fieldsOf, dialect);
}

/** The live digest with the record folded in: either moving invalidates a saved plan. */
export function combinedDigest(live: string, record: LastApplied): string {
  return 'sha256:' + createHash('sha256').update(live).update('\n').update(stableJson(record)).digest('hex');
}
