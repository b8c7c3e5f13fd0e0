// The server's own rules on a declared role, at plan, for both role resources (the backend's
// nested roles and keyward_cloud_auth_role): the decision is objects/role.ts roleServerProblem's,
// the one the CLI's plan makes; here it only becomes a diagnostic on the attribute. An error stays
// an error at terraform plan (the CLI plans it, labelled, and refuses it at apply): Terraform's plan
// has no labels, so a plan that succeeded would show the lock-out as an ordinary list change, and
// `terraform apply` of that saved plan would write it. Failing the plan is the one refusal every
// Terraform user sees, before anything is written.

import type { AttributePath, Diagnostic, ObjectValue } from '../plugin/contract';
import { roleServerProblem } from '../../reconcile/objects/role';
import type { KeywardProviderContext } from './context';
import { roleCanonical } from './role-values';
import { hasUnknown } from './values';

/** `config` the declared role, `prior` the role in (refreshed) state: what the server holds. */
export async function roleServerDiagnostics(
  ctx: KeywardProviderContext,
  name: string,
  config: ObjectValue,
  prior: ObjectValue | undefined,
  at: AttributePath,
): Promise<Diagnostic[]> {
  if (!ctx.client || hasUnknown(config.type) || hasUnknown(config.bound_service_accounts)) return [];
  let dialect;
  try {
    dialect = await ctx.client.dialect();
  } catch {
    return []; // apply reports a server that cannot answer
  }
  const after = roleCanonical(name, config);
  const before = prior ? roleCanonical(name, prior) : undefined;
  const p = roleServerProblem(dialect, before, after);
  if (!p) return [];
  return [
    {
      severity: p.severity,
      summary: p.severity === 'error' ? `Role ${name}: \`*\` in bound_service_accounts locks every VM out` : `Role ${name}: its VMs are locked out`,
      detail: `${p.message}.`,
      attribute: [...at, p.field],
    },
  ];
}
