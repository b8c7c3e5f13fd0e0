// Rules that depend on the server, checked when a plan reads it rather than left to apply: the
// embedded engine refuses some values Vault accepts (engineOnlySnapshotProblems), so against a
// keyward server a plan that would write one fails naming the field, as apply would, and against
// Vault nothing is checked. The CLI's plan and the provider's plan both ask here.

import type { ServerDialect } from '../client/dialect/server-dialect';
import type { VaultClient } from '../client/vault-client';
import type { DesiredState } from './desired';
import type { Json, ObjectPlan, Plan } from './model';
import { roleServerProblem } from './objects/role';
import { configServerProblems } from './objects/auth-config';
import { engineOnlySnapshotProblems } from '../schema/snapshot-validate';
import type { SnapshotConfig } from '../schema/snapshot-config';

/** Problems of a snapshot config's canonical fields on a server of this dialect, as [field, message]. */
export function snapshotServerProblems(dialect: ServerDialect, fields: Record<string, Json>): Array<[field: string, message: string]> {
  if (dialect !== 'keyward') return [];
  return engineOnlySnapshotProblems(fields as unknown as SnapshotConfig);
}

/** A role's fields on the server as the plan saw them: the declaration with each planned change's `before`. */
function roleBefore(o: ObjectPlan, declared: Record<string, Json>): Record<string, Json> | undefined {
  if (o.action === 'create' || o.action === 'replace') return undefined;
  const before: Record<string, Json> = { ...declared };
  for (const c of o.changes) {
    if ('before' in c && c.before !== undefined) before[c.field] = c.before;
    else delete before[c.field];
  }
  return before;
}

/**
 * Values the server would refuse at apply fail the plan instead, naming object and field; values
 * it would accept but that cannot work there (objects/role.ts roleServerProblem) fail the plan
 * too, or, when the server already holds them, become the object's plan warnings.
 */
export async function refuseServerRuleProblems(client: VaultClient, desired: DesiredState, plan: Plan): Promise<void> {
  const writing = plan.objects.filter((o) => o.address.kind === 'snapshot-config' && ['create', 'update', 'replace'].includes(o.action));
  const roles = plan.objects.filter((o) => o.address.kind === 'role' && o.action !== 'delete' && desired.objects.has(o.id));
  const configs = plan.objects.filter((o) => o.address.kind === 'auth-config' && o.action !== 'delete' && desired.objects.has(o.id));
  if (writing.length === 0 && roles.length === 0 && configs.length === 0) return;
  const dialect = await client.dialect();
  const problems = writing.flatMap((o) => snapshotServerProblems(dialect, desired.objects.get(o.id)!.fields).map(([, m]) => `${o.id}: ${m}`));
  if (dialect === 'vault' && configs.length > 0) {
    const server = await client.serverInfo();
    for (const o of configs) {
      const d = desired.objects.get(o.id)!;
      problems.push(...configServerProblems(server, d.declared ?? Object.keys(d.fields)).map(([, m]) => `${o.id}: ${m}`));
    }
  }
  const unusable: string[] = [];
  for (const o of roles) {
    const declared = desired.objects.get(o.id)!.fields;
    const p = roleServerProblem(dialect, roleBefore(o, declared), declared);
    if (p?.severity === 'error') unusable.push(`${o.id}: ${p.field}: ${p.message}`);
    else if (p) o.warnings = [...(o.warnings ?? []), `${p.field}: ${p.message}`];
  }
  const parts = [
    ...(problems.length > 0 ? [`the server at ${client.address} would refuse ${problems.length === 1 ? 'this value' : 'these values'}:\n  ${problems.join('\n  ')}`] : []),
    // Accepted by the server, so apply would "succeed" and lock the role's VMs out.
    ...(unusable.length > 0
      ? [`the server at ${client.address} would accept but cannot honour ${unusable.length === 1 ? 'this value' : 'these values'}:\n  ${unusable.join('\n  ')}`]
      : []),
  ];
  if (parts.length > 0) throw new Error(parts.join('\n'));
}
