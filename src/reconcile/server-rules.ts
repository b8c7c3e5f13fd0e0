// Rules that depend on the server, checked when a plan reads it rather than left to apply: the
// embedded engine refuses some values Vault accepts (engineOnlySnapshotProblems), so against a
// keyward server a plan that would write one fails naming the field, as apply would, and against
// Vault nothing is checked. The CLI's plan and the provider's plan both ask here.

import type { ServerDialect } from '../client/dialect/server-dialect';
import type { VaultClient } from '../client/vault-client';
import type { DesiredState } from './desired';
import type { Json, Plan } from './model';
import { engineOnlySnapshotProblems } from '../schema/snapshot-validate';
import type { SnapshotConfig } from '../schema/snapshot-config';

/** Problems of a snapshot config's canonical fields on a server of this dialect, as [field, message]. */
export function snapshotServerProblems(dialect: ServerDialect, fields: Record<string, Json>): Array<[field: string, message: string]> {
  if (dialect !== 'keyward') return [];
  return engineOnlySnapshotProblems(fields as unknown as SnapshotConfig);
}

/** Values the server would refuse at apply fail the plan instead, naming object and field. */
export async function refuseServerRuleProblems(client: VaultClient, desired: DesiredState, plan: Plan): Promise<void> {
  const writing = plan.objects.filter((o) => o.address.kind === 'snapshot-config' && ['create', 'update', 'replace'].includes(o.action));
  if (writing.length === 0) return;
  const dialect = await client.dialect();
  const problems = writing.flatMap((o) => snapshotServerProblems(dialect, desired.objects.get(o.id)!.fields).map(([, m]) => `${o.id}: ${m}`));
  if (problems.length > 0) throw new Error(`the server at ${client.address} would refuse ${problems.length === 1 ? 'this value' : 'these values'}:\n  ${problems.join('\n  ')}`);
}
