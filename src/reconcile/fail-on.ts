// Rules that fail a pull request: `keyward plan --fail-on broadens-access,locks-out` (or the same list kept in
// cdktf.json's `keyward.failOn`) exits with FAIL_ON_EXIT_CODE, naming the objects whose planned change carries one
// of the labels. The code is its own: 1 is an error and 2 means "changes" under --detailed-exitcode.

import { MEANING_LABELS, type MeaningLabel, type Plan } from './model';

export const FAIL_ON_EXIT_CODE = 4;

/** The labels of a `--fail-on` list (comma-separated), or an Error naming the unknown ones and `from`. */
export function parseFailOn(list: string | readonly string[], from: string): MeaningLabel[] {
  const names = (typeof list === 'string' ? list.split(',') : [...list]).map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !(MEANING_LABELS as readonly string[]).includes(n));
  if (unknown.length) throw new Error(`${from}: unknown label${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} (known: ${MEANING_LABELS.join(', ')})`);
  return names as MeaningLabel[];
}

/** The objects whose planned change carries one of `labels`, with the labels found. */
export function failOnHits(p: Plan, labels: readonly MeaningLabel[]): Array<{ id: string; labels: MeaningLabel[] }> {
  const want = new Set(labels);
  return p.objects.map((o) => ({ id: o.id, labels: MEANING_LABELS.filter((l) => want.has(l) && o.meanings?.some((m) => m.label === l)) })).filter((h) => h.labels.length > 0);
}

/** The message `keyward plan` prints when a rule fails, one object a line. */
export const failOnMessage = (hits: ReturnType<typeof failOnHits>): string =>
  `--fail-on: ${hits.length} object${hits.length === 1 ? '' : 's'} carry a label the rules refuse:\n${hits.map((h) => `  ${h.id}: ${h.labels.join(', ')}`).join('\n')}`;
