// The work of `keyward apply` and `keyward destroy`, loaded only when they run: plan, show the
// plan, ask (unless --auto-approve or a saved plan), apply with progress, save the record.

import type { VaultClient } from '../../client/vault-client';
import { ApplyError, applyPlan, type ApplyResult } from '../../reconcile/apply';
import { desiredFromManifest, type DesiredState } from '../../reconcile/desired';
import { readLive } from '../../reconcile/live';
import { hasChanges, type Plan } from '../../reconcile/model';
import { makePlan, planFrom } from '../../reconcile/plan';
import { refuseRefusedChanges, refuseServerRuleProblems } from '../../reconcile/server-rules';
import { loadPlanFile } from '../../reconcile/plan-file';
import { lineProgress, ttyProgress } from '../../reconcile/progress';
import { emptyRecord, loadRecordFile, parseRecord, saveRecordFile, type LastApplied } from '../../reconcile/record';
import { renderText } from '../../reconcile/render-text';
import { expectDigest } from '../review-gates';
import { askApproval, cancelledMessage, requireApprovalPossible, type Operation } from '../approve';
import type { ApplyFlags, ApproveFlags, ConnectionFlags } from '../options';
import { resolveSource, terraformManaged } from '../cdktf-project';
import { withResend } from '../resend';
import { isPlanOnly, PLAN_ONLY_APPLY_REFUSED } from '../../schema/plan-only';
import { openClient, parallelismOf } from '../server-client';

export function applySummary(r: ApplyResult, op: Operation = 'apply'): string {
  const n = (a: string) => r.applied.filter((x) => x.action === a).length;
  // A destroy says so, as `terraform destroy` ends with "Destroy complete!"; it only deletes (a kept config is reset).
  if (op === 'destroy') return `Destroy complete: ${n('delete')} deleted${n('update') ? `, ${n('update')} reset` : ''}.\n`;
  return `Apply complete: ${n('create')} created, ${n('update')} updated, ${n('replace')} replaced, ${n('delete')} deleted.\n`;
}

/** Applies a plan with progress on stderr (a terminal) or plain lines on stdout, saving the record. */
export async function executePlan(
  client: VaultClient,
  desired: DesiredState,
  record: LastApplied,
  plan: Plan,
  recordPath: string | undefined,
  parallelism: number,
  op: Operation = 'apply',
): Promise<ApplyResult> {
  const progress = process.stderr.isTTY ? ttyProgress(process.stderr) : lineProgress((l) => process.stdout.write(l + '\n'));
  let result: ApplyResult;
  try {
    result = await applyPlan(client, desired, record, plan, {
      parallelism,
      progress,
      saveRecord: recordPath ? (rec) => saveRecordFile(recordPath, rec) : undefined,
    });
  } catch (e) {
    if (e instanceof ApplyError) process.stdout.write(serverWarnings(e.result));
    throw e;
  }
  process.stdout.write(serverWarnings(result) + applySummary(result, op));
  return result;
}

/** The server's write warnings (Vault's, in keyward's words), as Terraform prints its warnings. */
function serverWarnings(r: ApplyResult): string {
  return r.warnings.map((w) => `Warning: ${w.id}: ${w.warning}\n`).join('');
}

function recordFor(flags: ApplyFlags, fallback: string | undefined): { record: LastApplied; path?: string } {
  if (flags.lastAppliedEnv) {
    const raw = process.env[flags.lastAppliedEnv];
    return { record: raw && raw.trim() !== '' && raw.trim() !== 'null' ? parseRecord(JSON.parse(raw)) : emptyRecord() };
  }
  const path = flags.lastApplied ?? fallback;
  return { record: path ? loadRecordFile(path) : emptyRecord(), path };
}

/** A saved plan was reviewed already: it applies without asking, as in Terraform. */
async function applySaved(flags: ApplyFlags, planPath: string): Promise<number> {
  const par = parallelismOf(flags);
  const { file, desired } = loadPlanFile(planPath);
  const { record, path } = recordFor(flags, file.recordPath);
  const client = openClient(flags, file.plan.server);
  try {
    const live = await readLive(client, desired, record, { parallelism: par });
    const now = planFrom(desired, live, record, file.plan.server, await client.dialect());
    if (now.liveDigest !== file.plan.liveDigest) {
      throw new Error(`the server (or the last-applied record) changed since the plan in ${planPath} was made; run keyward plan again`);
    }
    // `keyward plan --out` saves a plan holding a refused change (for review); it is refused here, as it is read now.
    refuseRefusedChanges(now, client.address);
    process.stdout.write(renderText(file.plan));
    expectDigest(file.plan, flags.expectDigest);
    await executePlan(client, desired, record, file.plan, path, par);
    return 0;
  } finally {
    await client.close();
  }
}

export async function runApply(flags: ApplyFlags): Promise<number> {
  if (isPlanOnly(process.env)) throw new Error(PLAN_ONLY_APPLY_REFUSED);
  if (flags.plan) return applySaved(flags, flags.plan);
  requireApprovalPossible('apply', flags.autoApprove);
  const src = resolveSource(flags);
  if (src.origin.kind === 'terraform-state') throw new Error(terraformManaged(src, 'keyward apply would change the server behind its back'));
  return planAndApply('apply', flags, src.manifest.server, withResend(desiredFromManifest(src.manifest), flags.resend), src.record, src.recordPath);
}

/** Plans against the live server, shows the plan, asks, applies it: apply and destroy share this. */
export async function planAndApply(
  op: Operation,
  flags: ConnectionFlags & ApproveFlags & { expectDigest?: string },
  server: { address?: string; namespace?: string } | undefined,
  desired: DesiredState,
  record: LastApplied,
  recordPath: string | undefined,
): Promise<number> {
  const par = parallelismOf(flags);
  const client = openClient(flags, server);
  try {
    const { plan } = await makePlan(client, desired, record, { parallelism: par });
    await refuseServerRuleProblems(client, desired, plan);
    refuseRefusedChanges(plan, client.address);
    process.stdout.write(renderText(plan));
    // Nothing is applied unless it is what was reviewed.
    expectDigest(plan, flags.expectDigest);
    if (!hasChanges(plan)) return 0;
    if (!flags.autoApprove && !(await askApproval(op))) {
      process.stderr.write(`${cancelledMessage(op)} Nothing was changed.\n`);
      return 1;
    }
    await executePlan(client, desired, record, plan, recordPath, par, op);
    return 0;
  } finally {
    await client.close();
  }
}
