// Markdown rendering of a plan for pull-request comments, in the shape reviewers know from Atlantis, Terrateam and
// tf-summarize comments, with what none of them can say: what each change means for access and backups.
// Order: a one-line summary with counts, a table for the server, the changes that need attention (deletions,
// replacements, moves, lock-outs, access broadened, credentials sent elsewhere, backups reduced), then one collapsed
// section per changed object (a deletion shows what is deleted; a creation what was declared, defaults folded away),
// the changes Terraform deferred (`keyward show`), drift in its own section, and the command that applies the plan.
// A change apply refuses is called out on top. Secrets only as (sensitive).
// A comment never exceeds GitHub's 65,536 characters: past that the plan is summarised (counts per action and label;
// deletions and labelled changes named first, as many as fit) and says where the full plan is.

import { isFieldDefault } from './field-defaults';
import { MEANING_LABELS, type Json, type MeaningLabel, type ObjectPlan, type Plan } from './model';
import { unsetSecretLines } from './plan-only';
import { applier, recordText } from './plan-record';
import { SYMBOL, driftText, summaryLine } from './render-text';

/** GitHub's limit on a comment body. */
export const MARKDOWN_LIMIT = 65_536;

export interface MarkdownOptions {
  /** The command that applies this plan, shown as the closing hint (default `keyward apply`). */
  applyCommand?: string;
  /** The digest of the reviewed decisions (review-digest.ts), carried to the deploy (`--expect-digest`). */
  digest?: string;
  /** Where the full plan is when the comment is summarised (e.g. the JSON file the CI step uploads). */
  fullPlanLocation?: string;
  /** For tests: the size limit (default MARKDOWN_LIMIT). */
  limit?: number;
}

/** Inline code safe inside tables and HTML: values may contain | ` < > &. */
function code(text: string): string {
  const esc = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '&#124;').replace(/`/g, '&#96;');
  return `<code>${esc}</code>`;
}
/** Markdown text of an explanation: its `code` spans kept, HTML escaped. */
const prose = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const val = (v: Json | undefined) => (v === undefined ? '' : code(JSON.stringify(v)));
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export const LABEL_TEXT: Record<MeaningLabel, string> = {
  'locks-out': '⛔ locks out',
  'broadens-access': '🔓 broadens access',
  'credential-destination': '📤 credentials sent elsewhere',
  'reduces-backups': '💾 reduces backups',
  'revokes-tokens': '🔑 revokes tokens',
  'interrupts-logins': '⏸ interrupts logins',
  'narrows-access': '🔒 narrows access',
  'needs-review': '👀 needs review',
};
/** The labels that put an object in "needs attention", most severe first. */
const ATTENTION: readonly MeaningLabel[] = ['locks-out', 'broadens-access', 'credential-destination', 'reduces-backups', 'revokes-tokens', 'interrupts-logins'];

const labelsOf = (o: ObjectPlan): MeaningLabel[] => MEANING_LABELS.filter((l) => o.meanings?.some((m) => m.label === l));
const badges = (o: ObjectPlan) =>
  labelsOf(o)
    .map((l) => `\`${l}\``)
    .join(' ');

/** Why an object is replaced: the fields that cannot change in place. */
function replaceCause(o: ObjectPlan): string {
  const fields = o.changes.filter((c) => c.forcesReplace).map((c) => c.field);
  return fields.length ? `${fields.join(', ')} cannot change in place` : 'cannot change in place';
}

/** How urgent an object is for a reviewer: lower first (deletions, then by its most severe label). */
function rank(o: ObjectPlan): number {
  if (o.action === 'delete') return 0;
  const ls = labelsOf(o);
  const i = ATTENTION.findIndex((l) => ls.includes(l));
  if (i >= 0) return 1 + i;
  if (o.action === 'replace') return 1 + ATTENTION.length;
  return 10 + (ls.length ? 0 : 1);
}
const needsAttention = (o: ObjectPlan) => o.action === 'delete' || o.action === 'replace' || labelsOf(o).some((l) => ATTENTION.includes(l));

function head(p: Plan, opts: MarkdownOptions, out: string[]): void {
  const changed = p.objects.filter((o) => o.action !== 'no-op');
  const counts = MEANING_LABELS.map((l) => [l, changed.filter((o) => labelsOf(o).includes(l)).length] as const).filter(([, n]) => n > 0);
  out.push(`**${summaryLine(p)}**${counts.length ? ` ${counts.map(([l, n]) => `${LABEL_TEXT[l]}: ${n}`).join(' · ')}` : ''}`);
  out.push('');
  out.push('| server | namespace | create | update | replace | delete | unchanged |');
  out.push('|---|---|---|---|---|---|---|');
  const s = p.summary;
  out.push(`| ${code(p.server.address)} | ${p.server.namespace ? code(p.server.namespace) : 'root'} | ${s.create} | ${s.update} | ${s.replace} | ${s.delete} | ${s.noop} |`);
  out.push('');
  const record = recordText(p);
  if (record) out.push(`_${record}_`, '');
  if (opts.digest) out.push(`Reviewed-plan digest: ${code(opts.digest)} (apply what was reviewed: ${code(`--expect-digest ${opts.digest}`)})`, '');
  const [unsetHead, ...unset] = unsetSecretLines(p);
  if (unsetHead) out.push('> [!NOTE]', `> ${unsetHead}`, ...unset.map((l) => `> - ${code(l)}`), '');
  const refused = p.objects.filter((o) => o.refused);
  if (refused.length) {
    out.push('> [!CAUTION]', `> ${code('keyward apply')} refuses ${plural(refused.length, 'change')} of this plan (built-in rule; the plan exits 4):`);
    for (const o of refused) out.push(`> - ${code(o.id)} \`${o.refused!.label}\` ${code(o.refused!.field)}: ${prose(o.refused!.message)}`);
    out.push('');
  }
}

function attentionLine(o: ObjectPlan): string[] {
  const what = o.action === 'delete' ? `delete${o.reason ? ` (${o.reason})` : ''}` : o.action === 'replace' ? `replace (${replaceCause(o)})` : o.action;
  const lines = [`- ${code(`${SYMBOL[o.action]} ${o.id}`)} ${what}${o.meanings?.length ? ` ${badges(o)}` : ''}`];
  for (const m of o.meanings ?? []) lines.push(`  - ${m.field ? `${code(m.field)}: ` : ''}${prose(m.explanation)}`);
  for (const w of o.warnings ?? []) lines.push(`  - ⚠ ${prose(w)}`);
  return lines;
}

function objectSection(o: ObjectPlan, out: string[]): void {
  const n = o.changes.length;
  const kind = o.address.kind;
  // A creation lists what was declared: fields at the table's default are folded into a count.
  const shown = o.action === 'create' ? o.changes.filter((c) => c.sensitive || !isFieldDefault(kind, c.field, c.after)) : o.changes;
  const folded = n - shown.length;
  const what =
    o.action === 'delete'
      ? (o.reason ?? '')
      : o.action === 'create'
        ? `${plural(shown.length, 'field')} declared${folded ? `, ${folded} at their defaults` : ''}`
        : `${plural(n, 'field')} changed${o.unchangedFields ? `, ${o.unchangedFields} unchanged` : ''}`;
  out.push('<details>');
  out.push(`<summary>${code(`${SYMBOL[o.action]} ${o.id}`)} ${o.action}${what ? ` (${what})` : ''}${o.meanings?.length ? ` ${badges(o)}` : ''}</summary>`);
  out.push('');
  for (const m of o.meanings ?? []) out.push(`- ${LABEL_TEXT[m.label]}${m.field ? ` ${code(m.field)}` : ''}: ${prose(m.explanation)}`);
  if (o.meanings?.length) out.push('');
  if (shown.length > 0) {
    out.push(o.action === 'delete' ? '| field | deleted value |' : '| field | before | after |');
    out.push(o.action === 'delete' ? '|---|---|' : '|---|---|---|');
    for (const c of shown) {
      if (o.action === 'delete') {
        out.push(`| ${code(c.field)} | ${c.sensitive ? '(sensitive)' : val(c.before)} |`);
      } else if (c.sensitive) {
        const before = c.before === undefined || c.before === null ? '' : '(sensitive)';
        const after = c.after === null ? '(none)' : before ? '(sensitive, changed)' : '(sensitive)';
        out.push(`| ${code(c.field)} | ${before} | ${after} |`);
      } else {
        out.push(`| ${code(c.field)}${c.forcesReplace ? ' (forces replacement)' : ''} | ${val(c.before)} | ${val(c.after)} |`);
      }
    }
    out.push('');
  }
  out.push('</details>');
  out.push('');
}

function driftSection(p: Plan, out: string[]): void {
  if (p.drift.length === 0) return;
  out.push('#### Drift');
  out.push('');
  out.push(`${plural(p.drift.length, 'change')} made outside ${applier(p)} since the last apply (the changes above restore the declared state):`);
  out.push('');
  for (const d of p.drift) out.push(`- ${code(driftText(d))}`);
  out.push('');
}

function tail(p: Plan, opts: MarkdownOptions, out: string[]): void {
  const kept = p.objects.filter((x) => x.action === 'no-op' && x.reason?.startsWith('kept:'));
  for (const o of kept) out.push(`> Kept ${code(o.id)}: ${o.reason!.slice('kept: '.length)}`);
  if (kept.length > 0) out.push('');
  if (p.objects.some((o) => o.action !== 'no-op')) out.push('---', `To apply this plan: ${code(opts.applyCommand ?? 'keyward apply')}`);
}

function full(p: Plan, opts: MarkdownOptions): string {
  const out: string[] = [];
  head(p, opts, out);
  const changed = p.objects.filter((o) => o.action !== 'no-op').sort((a, b) => rank(a) - rank(b));
  const attention = changed.filter(needsAttention);
  if (attention.length) {
    out.push('#### Needs attention', '');
    for (const o of attention) out.push(...attentionLine(o));
    out.push('');
  }
  for (const o of p.objects.filter((x) => x.action === 'no-op' && x.warnings?.length)) out.push(...attentionLine(o), '');
  if (changed.length === 0) {
    out.push(`No changes: the server matches the desired state (${plural(p.summary.noop, 'object')} checked).`, '');
  } else {
    out.push('#### Changes', '');
    for (const o of changed) objectSection(o, out);
  }
  deferredSection(p, out);
  driftSection(p, out);
  tail(p, opts, out);
  return out.join('\n').trimEnd() + '\n';
}

/** Changes Terraform deferred (`keyward show`): not this plan's, each with its resource, reason and labels. */
function deferredSection(p: Plan, out: string[]): void {
  if (!p.deferred?.length) return;
  out.push('#### Deferred by Terraform', '');
  out.push(
    `${plural(p.deferred.length, 'object')} Terraform deferred: not part of this plan (applying it leaves them alone); Terraform plans them again on a later run, where they are reviewed as planned changes.`,
    '',
  );
  for (const d of p.deferred) {
    const o = d.object;
    out.push(`- ${code(`${SYMBOL[o.action]} ${o.id}`)} ${o.action}${o.meanings?.length ? ` ${badges(o)}` : ''}: ${code(d.resource)} ${code(d.reason)} (${prose(d.explanation)})`);
    for (const m of o.meanings ?? []) out.push(`  - ${m.field ? `${code(m.field)}: ` : ''}${prose(m.explanation)}`);
  }
  out.push('');
  for (const d of p.deferred) objectSection(d.object, out);
}

/**
 * The plan summarised to fit `limit`: the head, counts per action and label, then deletions and labelled changes
 * named (most severe first) as long as they fit, the rest counted by action and label.
 */
function summarised(p: Plan, opts: MarkdownOptions, limit: number): string {
  const out: string[] = [];
  head(p, opts, out);
  out.push('> [!IMPORTANT]');
  out.push(
    `> This plan is too large for one comment (${plural(p.objects.filter((o) => o.action !== 'no-op').length, 'changed object')}): it is summarised here. ` +
      `The full plan: ${opts.fullPlanLocation ? prose(opts.fullPlanLocation) : `${code('keyward plan --out plan.json')} (JSON), or ${code('keyward plan')} locally`}.`,
    '',
  );
  const changed = p.objects.filter((o) => o.action !== 'no-op').sort((a, b) => rank(a) - rank(b));
  out.push('| changes | objects |', '|---|---|');
  for (const a of ['delete', 'replace', 'update', 'create'] as const) {
    const n = changed.filter((o) => o.action === a).length;
    if (n) out.push(`| ${a} | ${n} |`);
  }
  for (const l of MEANING_LABELS) {
    const n = changed.filter((o) => labelsOf(o).includes(l)).length;
    if (n) out.push(`| ${LABEL_TEXT[l]} | ${n} |`);
  }
  if (p.deferred?.length) out.push(`| deferred by Terraform (not in this plan) | ${p.deferred.length} |`);
  out.push('');
  const closing: string[] = [];
  driftSection({ ...p, drift: p.drift.slice(0, 50) }, closing);
  if (p.drift.length > 50) closing.push(`_…and ${p.drift.length - 50} more drift entries: see the full plan._`, '');
  tail(p, opts, closing);
  const closingText = closing.join('\n');
  out.push('#### Needs attention, most severe first', '');
  let size = out.join('\n').length + closingText.length + 2000;
  let named = 0;
  for (const o of changed.filter(needsAttention)) {
    const line = `- ${code(`${SYMBOL[o.action]} ${o.id}`)} ${o.action}${o.meanings?.length ? ` ${badges(o)}` : ''}`;
    if (size + line.length + 1 > limit) break;
    out.push(line);
    size += line.length + 1;
    named++;
  }
  const rest = changed.filter(needsAttention).slice(named);
  const others = changed.filter((o) => !needsAttention(o));
  if (rest.length || others.length) {
    out.push('');
    const groups = new Map<string, number>();
    for (const o of [...rest, ...others]) {
      const key = `${o.action}${labelsOf(o).length ? ` ${badges(o)}` : ''}`;
      groups.set(key, (groups.get(key) ?? 0) + 1);
    }
    out.push(`Not named above (${plural(rest.length + others.length, 'object')}):`, '');
    for (const [k, n] of groups) out.push(`- ${n} × ${k}`);
  }
  out.push('', closingText);
  return out.join('\n').trimEnd() + '\n';
}

export function renderMarkdown(p: Plan, opts: MarkdownOptions = {}): string {
  const limit = opts.limit ?? MARKDOWN_LIMIT;
  const text = full(p, opts);
  return text.length <= limit ? text : summarised(p, opts, limit);
}
