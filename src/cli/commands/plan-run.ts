// The work of `keyward plan`, loaded only when the command runs (not for --help or --version).

import { desiredFromManifest } from '../../reconcile/desired';
import { hasChanges, type Plan } from '../../reconcile/model';
import { makePlan } from '../../reconcile/plan';
import { savePlanFile } from '../../reconcile/plan-file';
import { renderJson } from '../../reconcile/render-json';
import { renderMarkdown } from '../../reconcile/render-markdown';
import { renderText } from '../../reconcile/render-text';
import type { Format, PlanFlags } from '../options';
import { resolveSource } from '../project';
import { openClient, parallelismOf } from '../session';

export function render(plan: Plan, format: Format): string {
  return format === 'json' ? renderJson(plan) : format === 'markdown' ? renderMarkdown(plan) : renderText(plan);
}

export async function runPlan(flags: PlanFlags, write: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  const src = resolveSource(flags);
  const desired = desiredFromManifest(src.manifest);
  const client = openClient(flags, src.manifest.server);
  try {
    const { plan } = await makePlan(client, desired, src.record, { parallelism: parallelismOf(flags) });
    write(render(plan, flags.format));
    if (flags.out) savePlanFile(flags.out, plan, desired, src.recordPath);
    return flags.detailedExitcode && hasChanges(plan) ? 2 : 0;
  } finally {
    await client.close();
  }
}
