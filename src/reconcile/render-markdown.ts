// Markdown rendering of a plan for pull-request comments, in the shape reviewers know from
// Terraform's and tfcmt's comments: the summary line first, deletions and replacements flagged at
// the top in a warning block, one collapsed section per changed object with a field table, drift
// in its own section, and the command that applies the plan at the bottom. Secrets only as
// (sensitive).

import type { Json, ObjectPlan, Plan } from './model';
import { unsetSecretLines } from './plan-only';
import { applier, recordText } from './plan-record';
import { SYMBOL, driftText, summaryLine } from './render-text';

export interface MarkdownOptions {
  /** The command that applies this plan, shown as the closing hint (default `keyward apply`). */
  applyCommand?: string;
}

/** Inline code safe inside tables and HTML: values may contain | ` < > &. */
function code(text: string): string {
  const esc = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '&#124;').replace(/`/g, '&#96;');
  return `<code>${esc}</code>`;
}

const val = (v: Json | undefined) => (v === undefined ? '' : code(JSON.stringify(v)));
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Why an object is replaced: the fields that cannot change in place. */
function replaceCause(o: ObjectPlan): string {
  const fields = o.changes.filter((c) => c.forcesReplace).map((c) => c.field);
  return fields.length ? `${fields.join(', ')} cannot change in place` : 'cannot change in place';
}

/** The GitHub alert block listing every deletion and replacement, or nothing when there is none. */
function destructiveWarning(p: Plan, out: string[]): void {
  const deletes = p.objects.filter((o) => o.action === 'delete');
  const replaces = p.objects.filter((o) => o.action === 'replace');
  if (deletes.length + replaces.length === 0) return;
  const what = [deletes.length ? `${plural(deletes.length, 'object')} will be deleted` : '', replaces.length ? `${plural(replaces.length, 'object')} replaced` : '']
    .filter(Boolean)
    .join(' and ');
  out.push('> [!WARNING]');
  out.push(`> **${what}.**${replaces.length ? ' A replacement deletes the object and creates it again: logins through a replaced role fail in between.' : ''}`);
  out.push('>');
  for (const o of deletes) out.push(`> - ${code(`${SYMBOL.delete} ${o.id}`)} delete${o.reason ? ` (${o.reason})` : ''}`);
  for (const o of replaces) out.push(`> - ${code(`${SYMBOL.replace} ${o.id}`)} replace (${replaceCause(o)})`);
  out.push('');
}

/** The plan's warnings (a key left as the server holds it, tokens a move revokes) in one alert block. */
function planWarnings(p: Plan, out: string[]): void {
  const warned = p.objects.filter((o) => o.warnings?.length);
  if (warned.length === 0) return;
  out.push('> [!CAUTION]');
  for (const o of warned) for (const w of o.warnings!) out.push(`> - ${code(o.id)}: ${w}`);
  out.push('');
}

function objectSection(o: ObjectPlan, out: string[]): void {
  const n = o.changes.length;
  const what = o.action === 'delete' ? (o.reason ?? '') : `${plural(n, 'field')} changed${o.unchangedFields ? `, ${o.unchangedFields} unchanged` : ''}`;
  out.push('<details>');
  out.push(`<summary>${code(`${SYMBOL[o.action]} ${o.id}`)} ${o.action}${what ? ` (${what})` : ''}</summary>`);
  out.push('');
  if (o.action !== 'delete' && n > 0) {
    out.push('| field | before | after |');
    out.push('|---|---|---|');
    for (const c of o.changes) {
      if (c.sensitive) {
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

export function renderMarkdown(p: Plan, opts: MarkdownOptions = {}): string {
  const out: string[] = [];
  out.push(`**${summaryLine(p)}**`);
  out.push('');
  out.push(`keyward plan for ${code(p.server.address + (p.server.namespace ? ` (namespace ${p.server.namespace})` : ''))}`);
  out.push('');
  const record = recordText(p);
  if (record) {
    out.push(`_${record}_`);
    out.push('');
  }
  destructiveWarning(p, out);
  const [head, ...unset] = unsetSecretLines(p);
  if (head) {
    out.push('> [!NOTE]', `> ${head}`, ...unset.map((l) => `> - ${code(l)}`), '');
  }
  planWarnings(p, out);
  const changed = p.objects.filter((o) => o.action !== 'no-op');
  if (changed.length === 0) {
    out.push(`No changes: the server matches the desired state (${plural(p.summary.noop, 'object')} checked).`);
    out.push('');
  } else {
    out.push('#### Changes');
    out.push('');
    for (const o of changed) objectSection(o, out);
    if (p.summary.noop > 0) {
      out.push(`_${plural(p.summary.noop, 'object')} unchanged._`);
      out.push('');
    }
  }
  const kept = p.objects.filter((x) => x.action === 'no-op' && x.reason?.startsWith('kept:'));
  for (const o of kept) out.push(`> Kept ${code(o.id)}: ${o.reason!.slice('kept: '.length)}`);
  if (kept.length > 0) out.push('');
  driftSection(p, out);
  if (changed.length > 0) {
    out.push('---');
    out.push(`To apply this plan: ${code(opts.applyCommand ?? 'keyward apply')}`);
  }
  return out.join('\n').trimEnd() + '\n';
}
