// Rules that fail a pull request: `keyward plan --fail-on broadens-access,locks-out` (or the same list kept in
// cdktf.json's `keyward.failOn`) exits with FAIL_ON_EXIT_CODE, naming the objects whose planned change carries one
// of the labels. The code is its own: 1 is an error and 2 means "changes" under --detailed-exitcode.
// One rule is built in and needs no flag: a change `keyward apply` refuses (ObjectPlan.refused, a vm role's `*` on
// Vault or OpenBao) fails the plan with the same code, named apart from the --fail-on matches, so a plan that cannot
// be applied never exits 0 or 2 although it is produced in full for review.

import { MEANING_LABELS, type MeaningLabel, type ObjectPlan, type Plan } from './model';

export const FAIL_ON_EXIT_CODE = 4;

/** The labels of a `--fail-on` list (comma-separated), or an Error naming the unknown ones and `from`. */
export function parseFailOn(list: string | readonly string[], from: string): MeaningLabel[] {
  const names = (typeof list === 'string' ? list.split(',') : [...list]).map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !(MEANING_LABELS as readonly string[]).includes(n));
  if (unknown.length) throw new Error(`${from}: unknown label${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} (known: ${MEANING_LABELS.join(', ')})`);
  return names as MeaningLabel[];
}

/**
 * The objects whose planned change carries one of `labels`, with the labels found. A change Terraform deferred
 * (`keyward show`) counts too, named as deferred: the merged code makes it on a later run without another review.
 */
export function failOnHits(p: Plan, labels: readonly MeaningLabel[]): Array<{ id: string; labels: MeaningLabel[] }> {
  const want = new Set(labels);
  const hit = (o: ObjectPlan, id: string) => ({ id, labels: MEANING_LABELS.filter((l) => want.has(l) && o.meanings?.some((m) => m.label === l)) });
  return [...p.objects.map((o) => hit(o, o.id)), ...(p.deferred ?? []).map((d) => hit(d.object, `${d.object.id} (deferred by Terraform: ${d.resource})`))].filter(
    (h) => h.labels.length > 0,
  );
}

/** The message `keyward plan` prints when a rule fails, one object a line. */
export const failOnMessage = (hits: ReturnType<typeof failOnHits>): string =>
  `--fail-on: ${hits.length} object${hits.length === 1 ? '' : 's'} carry a label the rules refuse:\n${hits.map((h) => `  ${h.id}: ${h.labels.join(', ')}`).join('\n')}`;

/** The built-in rule's message: each change apply refuses, with its label, field and why; undefined when none. */
export function refusedMessage(p: Plan): string | undefined {
  const refused = p.objects.filter((o) => o.refused);
  if (refused.length === 0) return undefined;
  const n = refused.length;
  return (
    `built-in rule: ${n} change${n === 1 ? '' : 's'} keyward apply refuses (the server would accept ${n === 1 ? 'it' : 'them'} but cannot honour ${n === 1 ? 'it' : 'them'}):\n` +
    refused.map((o) => `  ${o.id}: ${o.refused!.label}: ${o.refused!.field}: ${o.refused!.message}`).join('\n')
  );
}
