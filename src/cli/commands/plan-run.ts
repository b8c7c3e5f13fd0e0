// The work of `keyward plan`, loaded only when the command runs (not for --help or --version).

import { desiredFromManifest } from '../../reconcile/desired';
import { hasChanges, type Plan } from '../../reconcile/model';
import { makePlan } from '../../reconcile/plan';
import { savePlanFile } from '../../reconcile/plan-file';
import { renderJson } from '../../reconcile/render-json';
import { renderMarkdown } from '../../reconcile/render-markdown';
import { renderText } from '../../reconcile/render-text';
import { inServerNames } from '../../reconcile/server-names';
import type { Format, PlanFlags } from '../options';
import { resolveSource } from '../project';
import { withResend } from '../resend';
import { openClient, parallelismOf } from '../session';

/** Shell-quotes a word only when it needs it, so the hint reads like what a user would type. */
const word = (s: string) => (/^[\w./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The command that applies what this plan shows: the saved plan, or the same sources again. */
export function applyCommandFor(flags: PlanFlags): string {
  if (flags.out) return `keyward apply --plan ${word(flags.out)}`;
  const args = ['keyward', 'apply'];
  const pairs: [string, string | undefined][] = [
    ['--manifest', flags.manifest],
    ['--dir', flags.dir],
    ['--app', flags.app],
    ['--stack', flags.stack],
    ['--last-applied', flags.lastApplied],
    ['--last-applied-env', flags.lastAppliedEnv],
  ];
  for (const [flag, value] of pairs) if (value !== undefined) args.push(flag, word(value));
  for (const id of flags.resend ?? []) args.push('--resend', word(id));
  return args.join(' ');
}

export function render(plan: Plan, format: Format, applyCommand?: string): string {
  return format === 'json' ? renderJson(plan) : format === 'markdown' ? renderMarkdown(plan, { applyCommand }) : renderText(plan);
}

export async function runPlan(flags: PlanFlags, write: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  const src = resolveSource(flags);
  const desired = withResend(desiredFromManifest(src.manifest), flags.resend);
  const client = openClient(flags, src.manifest.server);
  try {
    const { plan } = await makePlan(client, desired, src.record, { parallelism: parallelismOf(flags) });
    write(render(flags.showServerNames ? inServerNames(plan, await client.translator()) : plan, flags.format, applyCommandFor(flags)));
    if (flags.out) savePlanFile(flags.out, plan, desired, src.recordPath);
    return flags.detailedExitcode && hasChanges(plan) ? 2 : 0;
  } finally {
    await client.close();
  }
}
