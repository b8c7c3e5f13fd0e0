// The work of `keyward show`, loaded only when it runs.

import { readFileSync } from 'node:fs';
import { hasChanges } from '../../reconcile/model';
import { renderJson } from '../../reconcile/render-json';
import { renderMarkdown } from '../../reconcile/render-markdown';
import { renderText } from '../../reconcile/render-text';
import { planFromTerraformJson } from '../../terraform/state/terraform-plan';

export function runShow(
  file: string,
  flags: { format: 'text' | 'markdown' | 'json'; detailedExitcode?: boolean; applyCommand: string },
  write: (s: string) => void = (s) => process.stdout.write(s),
): number {
  const text = readFileSync(file === '-' ? 0 : file, 'utf8');
  const plan = planFromTerraformJson(text, file === '-' ? 'standard input' : file);
  write(flags.format === 'json' ? renderJson(plan) : flags.format === 'markdown' ? renderMarkdown(plan, { applyCommand: flags.applyCommand }) : renderText(plan));
  return flags.detailedExitcode && hasChanges(plan) ? 2 : 0;
}
