// Terminal rendering of a plan: terraform-like symbols (+ ~ - -/+), field-level before -> after,
// unchanged fields counted, a drift section, secrets only as (sensitive) / (sensitive, changed),
// and the summary line. Pure: plan in, text out.

import type { Action, DriftEntry, FieldChange, Json, ObjectPlan, Plan } from './model';
import { unsetSecretLines } from './plan-only';
import { applier, recordText } from './plan-record';

export const SYMBOL: Record<Action, string> = { create: '+', update: '~', delete: '-', replace: '-/+', 'no-op': ' ' };
const VERB: Record<Action, string> = {
  create: 'will be created',
  update: 'will be updated in place',
  delete: 'will be deleted',
  replace: 'must be replaced',
  'no-op': 'is unchanged',
};

export const fmt = (v: Json | undefined): string => (v === undefined ? '(none)' : JSON.stringify(v));

export function summaryLine(p: Plan): string {
  const s = p.summary;
  // Deferred changes are not this plan's: counted apart, after the actions it carries out.
  const deferred = s.deferred ? ` Deferred by Terraform: ${s.deferred} object${s.deferred === 1 ? '' : 's'} (not in this plan).` : '';
  return `Plan: ${s.create} to create, ${s.update} to update, ${s.replace} to replace, ${s.delete} to delete.${deferred}`;
}

/** One field change as text, without its leading indentation. */
export function changeText(c: FieldChange, action: Action): string {
  if (c.sensitive) {
    if (c.after === null) return `- ${c.field} = (sensitive)`;
    if (action === 'create' || c.before === undefined || c.before === null) return `+ ${c.field} = (sensitive)`;
    return `~ ${c.field} = (sensitive, changed)`;
  }
  if (action === 'delete') return `- ${c.field} = ${fmt(c.before)}`;
  if (c.before === undefined) return `+ ${c.field} = ${fmt(c.after)}`;
  return `~ ${c.field}: ${fmt(c.before)} -> ${fmt(c.after)}${c.forcesReplace ? ' # forces replacement' : ''}`;
}

export function driftText(d: DriftEntry): string {
  if (d.kind === 'deleted') return `- ${d.id}: deleted outside keyward`;
  if (d.kind === 'created') return `+ ${d.id}: created outside keyward (not declared: left alone unless its scope is exclusive)`;
  if (d.sensitive) return `~ ${d.id}: ${d.field} (sensitive) changed outside keyward`;
  return `~ ${d.id}: ${d.field}: ${fmt(d.lastApplied)} (last applied) -> ${fmt(d.live)} (live)`;
}

function objectText(o: ObjectPlan, out: string[], indent = '  '): void {
  const reason = o.action === 'delete' && o.reason ? ` (${o.reason})` : '';
  out.push(`${indent}${SYMBOL[o.action]} ${o.id} ${VERB[o.action]}${reason}`);
  for (const m of o.meanings ?? []) out.push(`${indent}    [${m.label}]${m.field ? ` ${m.field}` : ''}: ${m.explanation}`);
  if (o.action !== 'delete') for (const c of o.changes) out.push(`${indent}    ${changeText(c, o.action)}`);
  if (o.unchangedFields > 0) out.push(`${indent}    (${o.unchangedFields} unchanged field${o.unchangedFields === 1 ? '' : 's'} hidden)`);
}

/** Changes Terraform deferred (`keyward show`): what it would do to each object, and why it waits. */
function deferredText(p: Plan, out: string[]): void {
  if (!p.deferred?.length) return;
  out.push('Deferred by Terraform: not part of this plan (applying it leaves them alone); Terraform plans them again on a later run:');
  out.push('');
  for (const d of p.deferred) {
    objectText(d.object, out);
    out.push(`      deferred: ${d.resource}: ${d.reason} (${d.explanation})`);
    out.push('');
  }
}

export function renderText(p: Plan): string {
  const out: string[] = [];
  out.push(`keyward plan for ${p.server.address}${p.server.namespace ? ` (namespace ${p.server.namespace})` : ''}`);
  const record = recordText(p);
  if (record) out.push(record);
  out.push('');
  const [head, ...unset] = unsetSecretLines(p);
  if (head) out.push(head, ...unset.map((l) => `  ${l}`), '');
  if (p.drift.length > 0) {
    out.push(`Drift: objects changed outside ${applier(p)} since the last apply:`);
    for (const d of p.drift) out.push(`  ${driftText(d)}`);
    out.push('');
  }
  const changed = p.objects.filter((o) => o.action !== 'no-op');
  if (changed.length === 0) {
    out.push(`No changes. The server matches the desired state (${p.summary.noop} object${p.summary.noop === 1 ? '' : 's'} checked).`);
  } else {
    out.push('keyward will perform the following actions:');
    out.push('');
    for (const o of changed) {
      objectText(o, out);
      out.push('');
    }
    if (p.summary.noop > 0) out.push(`${p.summary.noop} object${p.summary.noop === 1 ? '' : 's'} unchanged.`);
  }
  if (p.deferred?.length) {
    if (out[out.length - 1] !== '') out.push('');
    deferredText(p, out);
  }
  const refused = p.objects.filter((o) => o.refused);
  if (refused.length > 0) {
    if (out[out.length - 1] !== '') out.push('');
    out.push('Refused at apply (built-in rule): keyward apply writes nothing while the plan holds these changes:');
    for (const o of refused) out.push(`  ⛔ ${o.id}: ${o.refused!.label}: ${o.refused!.field}: ${o.refused!.message}`);
    out.push('');
  }
  const warned = p.objects.filter((o) => o.warnings?.length);
  if (warned.length > 0) {
    if (out[out.length - 1] !== '') out.push('');
    out.push('Warnings:');
    for (const o of warned) for (const w of o.warnings!) out.push(`  ! ${o.id}: ${w}`);
    out.push('');
  }
  const kept = p.objects.filter((o) => o.action === 'no-op' && o.reason?.startsWith('kept:'));
  if (kept.length > 0) {
    out.push('Kept (no longer managed, left in place):');
    for (const o of kept) out.push(`  ${o.id}: ${o.reason!.slice('kept: '.length)}`);
    out.push('');
  }
  out.push(summaryLine(p));
  return out.join('\n') + '\n';
}
