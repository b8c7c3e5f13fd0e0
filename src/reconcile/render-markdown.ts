// Markdown rendering of a plan for pull-request comments: summary line, one collapsible section
// per changed object with a field table, and the drift section. Secrets only as (sensitive).

import type { Json, ObjectPlan, Plan } from './model';
import { SYMBOL, driftText, summaryLine } from './render-text';

const ACTION_WORD = { create: 'create', update: 'update', delete: 'delete', replace: 'replace', 'no-op': 'no-op' } as const;

/** Inline code safe inside tables and HTML: values may contain | ` < > &. */
function code(text: string): string {
  const esc = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '&#124;').replace(/`/g, '&#96;');
  return `<code>${esc}</code>`;
}

const val = (v: Json | undefined) => (v === undefined ? '' : code(JSON.stringify(v)));

function objectSection(o: ObjectPlan, out: string[]): void {
  const n = o.changes.length;
  const what = o.action === 'delete' ? (o.reason ?? '') : `${n} field${n === 1 ? '' : 's'} changed${o.unchangedFields ? `, ${o.unchangedFields} unchanged` : ''}`;
  out.push('<details>');
  out.push(`<summary>${code(`${SYMBOL[o.action]} ${o.id}`)} ${ACTION_WORD[o.action]}${what ? ` (${what})` : ''}</summary>`);
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

export function renderMarkdown(p: Plan): string {
  const out: string[] = [];
  out.push(`### keyward plan for ${code(p.server.address + (p.server.namespace ? ` (namespace ${p.server.namespace})` : ''))}`);
  out.push('');
  out.push(`**${summaryLine(p)}**`);
  out.push('');
  const changed = p.objects.filter((o) => o.action !== 'no-op');
  if (changed.length === 0) out.push(`No changes: the server matches the desired state (${p.summary.noop} objects checked).`);
  else {
    for (const o of changed) objectSection(o, out);
    if (p.summary.noop > 0) out.push(`_${p.summary.noop} object${p.summary.noop === 1 ? '' : 's'} unchanged._`);
  }
  for (const o of p.objects.filter((x) => x.action === 'no-op' && x.reason?.startsWith('kept:'))) {
    out.push('');
    out.push(`> Kept ${code(o.id)}: ${o.reason!.slice('kept: '.length)}`);
  }
  if (p.drift.length > 0) {
    out.push('');
    out.push('<details>');
    out.push(`<summary>Drift: ${p.drift.length} change${p.drift.length === 1 ? '' : 's'} made outside keyward since the last apply</summary>`);
    out.push('');
    for (const d of p.drift) out.push(`- ${code(driftText(d))}`);
    out.push('');
    out.push('</details>');
  }
  return out.join('\n') + '\n';
}
