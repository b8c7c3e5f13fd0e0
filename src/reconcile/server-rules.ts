// Rules that depend on the server, checked when a plan reads it rather than left to apply: the
// embedded engine refuses some values Vault accepts (engineOnlySnapshotProblems), so against a
// keyward server a plan that would write one fails naming the field, as apply would, and against
// Vault nothing is checked. The CLI's plan and the provider's plan both ask here. A value the server
// accepts but cannot honour (a vm role's `*` on Vault) is planned, labelled and refused at apply.

import type { ServerDialect } from '../client/dialect/server-dialect';
import type { VaultClient } from '../client/vault-client';
import type { DesiredState } from './desired';
import type { Json, Plan, Refusal } from './model';
import { APPLY_REFUSES, roleServerProblem } from './objects/role';
import { configServerProblems } from './objects/auth-config';
import { engineOnlySnapshotProblems } from '../schema/snapshot-validate';
import type { SnapshotConfig } from '../schema/snapshot-config';

/** Problems of a snapshot config's canonical fields on a server of this dialect, as [field, message]. */
export function snapshotServerProblems(dialect: ServerDialect, fields: Record<string, Json>): Array<[field: string, message: string]> {
  if (dialect !== 'keyward') return [];
  return engineOnlySnapshotProblems(fields as unknown as SnapshotConfig);
}

/**
 * The role rules of the server (objects/role.ts roleServerProblem) on a plan, for every front end that plans (the
 * CLI's plan and PR plan through planFrom, `keyward show` of a Terraform plan): a change that would write what the
 * server accepts but cannot honour (`*` on a vm role toward Vault or OpenBao) stays in the plan, labelled, with
 * `refused` set, so a reviewer sees it and `keyward plan` exits with the review-rule code (review-refusals.ts);
 * `keyward apply` refuses such a plan (refuseRefusedChanges) and writes nothing. A role that already holds it on the
 * server gets a warning: refusing then would block every other change without unlocking anything.
 * `fieldsOf` gives an object's canonical fields before (the server's, or the record's) and after (declared).
 */
export function withRoleServerRules(plan: Plan, fieldsOf: (id: string) => { before?: Record<string, Json>; after?: Record<string, Json> }, dialect: ServerDialect): Plan {
  const objects = plan.objects.map((o) => {
    if (o.address.kind !== 'role' || o.action === 'delete') return o;
    const { before, after } = fieldsOf(o.id);
    // A replace deletes the role first: what it held says nothing of what the plan writes.
    const p = roleServerProblem(dialect, o.action === 'create' || o.action === 'replace' ? undefined : before, after);
    if (!p) return o;
    if (p.severity === 'warning') return { ...o, warnings: [...(o.warnings ?? []), `${p.field}: ${p.message}`] };
    // The label's explanation says it too (meaning.ts), and the renderers list refused changes apart.
    const refused: Refusal = { label: 'locks-out', field: p.field, message: `${p.message}; ${APPLY_REFUSES}` };
    return { ...o, refused };
  });
  return { ...plan, objects };
}

/** The changes of a plan that apply refuses, one a line (`id: field: why`); empty when none. */
export const refusedChanges = (plan: Plan): string[] => plan.objects.filter((o) => o.refused).map((o) => `${o.id}: ${o.refused!.field}: ${o.refused!.message}`);

/** Apply's side of withRoleServerRules: a plan holding a refused change is not applied, nothing is written. */
export function refuseRefusedChanges(plan: Plan, address: string): void {
  const refused = refusedChanges(plan);
  if (refused.length === 0) return;
  // Accepted by the server, so an apply would "succeed" and lock the role's VMs out.
  throw new Error(
    `the server at ${address} would accept but cannot honour ${refused.length === 1 ? 'this value' : 'these values'}, so nothing is applied:\n  ${refused.join('\n  ')}`,
  );
}

/**
 * Values the server would refuse at apply fail the plan instead, naming object and field. (Values it would accept
 * but that cannot work there are the plan's `refused` changes: withRoleServerRules.)
 */
export async function refuseServerRuleProblems(client: VaultClient, desired: DesiredState, plan: Plan): Promise<void> {
  const writing = plan.objects.filter((o) => o.address.kind === 'snapshot-config' && ['create', 'update', 'replace'].includes(o.action));
  const configs = plan.objects.filter((o) => o.address.kind === 'auth-config' && o.action !== 'delete' && desired.objects.has(o.id));
  if (writing.length === 0 && configs.length === 0) return;
  const dialect = await client.dialect();
  const problems = writing.flatMap((o) => snapshotServerProblems(dialect, desired.objects.get(o.id)!.fields).map(([, m]) => `${o.id}: ${m}`));
  if (dialect === 'vault' && configs.length > 0) {
    const server = await client.serverInfo();
    for (const o of configs) {
      const d = desired.objects.get(o.id)!;
      problems.push(...configServerProblems(server, d.declared ?? Object.keys(d.fields)).map(([, m]) => `${o.id}: ${m}`));
    }
  }
  if (problems.length > 0) throw new Error(`the server at ${client.address} would refuse ${problems.length === 1 ? 'this value' : 'these values'}:\n  ${problems.join('\n  ')}`);
}
