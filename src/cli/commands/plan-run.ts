// The work of `keyward plan`, loaded only when the command runs (not for --help or --version).

import { desiredFromManifest, withRecordFacts } from '../../reconcile/desired';
import { refuseServerRuleProblems } from '../../reconcile/server-rules';
import { hasChanges, type Plan } from '../../reconcile/model';
import { makePlan } from '../../reconcile/plan';
import { keepStoredFingerprints } from '../../reconcile/plan-only';
import { withRecord } from '../../reconcile/plan-record';
import { isPlanOnly, PLAN_ONLY_ENV } from '../../schema/plan-only';
import { savePlanFile } from '../../reconcile/plan-file';
import { renderJson } from '../../reconcile/render-json';
import { renderMarkdown } from '../../reconcile/render-markdown';
import { renderText } from '../../reconcile/render-text';
import { inServerNames } from '../../reconcile/server-names';
import { decisionsComment, reviewDigest } from '../../reconcile/review-digest';
import { expectDigest, failOnGate, failOnLabels } from '../review-gates';
import type { Format, PlanFlags } from '../options';
import { resolveSource, terraformManaged } from '../cdktf-project';
import { withResend } from '../resend';
import { openClient, parallelismOf } from '../server-client';

// Derived from the command table: every plan flag it marks toApply, repeated for `keyward apply`.
export { applyCommandFor } from '../command-table';
import { applyCommandFor } from '../command-table';

/** A plan as text, Markdown (with the reviewed-plan digest and its per-object decisions comment) or JSON. */
export function render(plan: Plan, format: Format, applyCommand?: string): string {
  if (format === 'json') return renderJson(plan);
  const digest = reviewDigest(plan);
  if (format === 'markdown') return `${renderMarkdown(plan, { applyCommand, digest })}\n${decisionsComment(plan)}\n`;
  return `${renderText(plan)}Reviewed-plan digest: ${digest}\n`;
}

/** An --app synth in plan-only mode names unset secret variables instead of failing. */
function inPlanOnlyMode<T>(f: () => T): T {
  const before = process.env[PLAN_ONLY_ENV];
  process.env[PLAN_ONLY_ENV] = '1';
  try {
    return f();
  } finally {
    if (before === undefined) delete process.env[PLAN_ONLY_ENV];
    else process.env[PLAN_ONLY_ENV] = before;
  }
}

export async function runPlan(flags: PlanFlags, write: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  const planOnly = flags.planOnly === true || isPlanOnly(process.env);
  if (planOnly && flags.out) throw new Error('--out: a plan-only plan (unset secrets taken as unchanged) cannot be applied, so it is not saved; plan again with every secret set');
  const failOn = failOnLabels(flags.failOn);
  const src = planOnly ? inPlanOnlyMode(() => resolveSource(flags)) : resolveSource(flags);
  if (flags.out && src.origin.kind === 'terraform-state') throw new Error(terraformManaged(src, '--out saves a plan for keyward apply'));
  const desired = withRecordFacts(withResend(desiredFromManifest(src.manifest, process.env, { unsetSecretsUnchanged: planOnly }), flags.resend), src);
  const unsetSecrets = keepStoredFingerprints(desired, src.record);
  const client = openClient(flags, src.manifest.server);
  try {
    const made = await makePlan(client, desired, src.record, { parallelism: parallelismOf(flags) });
    await refuseServerRuleProblems(client, desired, made.plan);
    const plan = { ...withRecord(made.plan, src.origin), ...(unsetSecrets.length ? { unsetSecrets } : {}) };
    write(render(flags.showServerNames ? inServerNames(plan, await client.translator()) : plan, flags.format, applyCommandFor(flags, src)));
    expectDigest(plan, flags.expectDigest);
    if (flags.out) savePlanFile(flags.out, plan, desired, src.recordPath);
    return failOnGate(plan, failOn) ?? (flags.detailedExitcode && hasChanges(plan) ? 2 : 0);
  } finally {
    await client.close();
  }
}
