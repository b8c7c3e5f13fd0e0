// `keyward apply`: plan and apply in one go, or apply a saved plan (--plan FILE, refused when the
// live state or the record moved since), then verify with a fresh read that nothing is left.

import type { Command } from 'commander';
import { desiredFromManifest, type DesiredState } from '../../reconcile/desired';
import { applyPlan, ApplyError, type ApplyResult } from '../../reconcile/apply';
import { readLive } from '../../reconcile/live';
import type { Plan } from '../../reconcile/model';
import { makePlan, planFrom } from '../../reconcile/plan';
import { loadPlanFile } from '../../reconcile/plan-file';
import { lineProgress, ttyProgress } from '../../reconcile/progress';
import { emptyRecord, loadRecordFile, parseRecord, saveRecordFile, type LastApplied } from '../../reconcile/record';
import { renderText } from '../../reconcile/render-text';
import { loadSource, type SourceOptions } from '../../reconcile/source';
import { addConnectionOptions, addSourceOptions, openClient, parallelismOf, type ConnectionFlags } from './plan';
import type { VaultClient } from '../../client/vault-client';

type ApplyFlags = SourceOptions & ConnectionFlags & { plan?: string };

export function applySummary(r: ApplyResult): string {
  const n = (a: string) => r.applied.filter((x) => x.action === a).length;
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
): Promise<ApplyResult> {
  const progress = process.stderr.isTTY ? ttyProgress(process.stderr) : lineProgress((l) => process.stdout.write(l + '\n'));
  const result = await applyPlan(client, desired, record, plan, {
    parallelism,
    progress,
    saveRecord: recordPath ? (rec) => saveRecordFile(recordPath, rec) : undefined,
  });
  process.stdout.write(applySummary(result));
  return result;
}

function recordFor(flags: ApplyFlags, fallback: string | undefined): { record: LastApplied; path?: string } {
  if (flags.lastAppliedEnv) {
    const raw = process.env[flags.lastAppliedEnv];
    return { record: raw && raw.trim() !== '' && raw.trim() !== 'null' ? parseRecord(JSON.parse(raw)) : emptyRecord() };
  }
  const path = flags.lastApplied ?? fallback;
  return { record: path ? loadRecordFile(path) : emptyRecord(), path };
}

export async function runApply(flags: ApplyFlags): Promise<number> {
  const par = parallelismOf(flags);
  if (flags.plan) {
    const { file, desired } = loadPlanFile(flags.plan);
    const { record, path } = recordFor(flags, file.recordPath);
    const client = openClient(flags, file.plan.server);
    try {
      const live = await readLive(client, desired, record, { parallelism: par });
      const now = planFrom(desired, live, record, file.plan.server);
      if (now.liveDigest !== file.plan.liveDigest) {
        throw new Error(`the server (or the last-applied record) changed since the plan in ${flags.plan} was made; run keyward plan again`);
      }
      process.stdout.write(renderText(file.plan));
      await executePlan(client, desired, record, file.plan, path, par);
      return 0;
    } finally {
      await client.close();
    }
  }
  const src = loadSource(flags);
  return planAndApply(flags, src.manifest.server, desiredFromManifest(src.manifest), src.record, src.recordPath);
}

/** Plans against the live server, shows the plan, applies it: apply and destroy share this. */
export async function planAndApply(
  flags: ConnectionFlags,
  server: { address?: string; namespace?: string } | undefined,
  desired: DesiredState,
  record: LastApplied,
  recordPath: string | undefined,
): Promise<number> {
  const par = parallelismOf(flags);
  const client = openClient(flags, server);
  try {
    const { plan } = await makePlan(client, desired, record, { parallelism: par });
    process.stdout.write(renderText(plan));
    await executePlan(client, desired, record, plan, recordPath, par);
    return 0;
  } finally {
    await client.close();
  }
}

export function registerApply(program: Command): void {
  const c = program.command('apply').description('Apply the desired state to the server, then verify it converged');
  addSourceOptions(c);
  addConnectionOptions(c);
  c.option('--plan <file>', 'apply a plan saved by `keyward plan --out FILE` (refused if the server changed since)').action(async (flags: ApplyFlags) => {
    try {
      process.exitCode = await runApply(flags);
    } catch (e) {
      if (e instanceof ApplyError) {
        process.stderr.write(`Error: ${e.message}\n`);
        process.exitCode = 1;
        return;
      }
      throw e;
    }
  });
}
