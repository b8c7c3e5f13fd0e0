// Validation problems → Terraform diagnostics the way terraform-plugin-framework reports them: one
// error per failing value, on that value's attribute path, saying the rule and the value; a rule
// between fields sits on one of them and names the others. Problems about values not yet known
// (known after apply) are left for plan, where they are known.

import type { FieldProblem } from '../../schema/field-problems';
import type { AttributePath, Diagnostic, ObjectValue, Value } from '../plugin/contract';
import { UNKNOWN } from '../plugin/contract';
import { errorAt, hasUnknown, showPath } from './values';

export interface ProblemMapping {
  /** The object the fields belong to (its attributes are the fields, unless `attributeOf` says otherwise). */
  values: ObjectValue;
  /** The attribute holding a field, or undefined when none does (the diagnostic goes on `base`). */
  attributeOf?: (field: string) => string | undefined;
  /** Fields already reported by an earlier check: a problem involving one of them is a consequence, not news. */
  reported?: ReadonlySet<string>;
}

/** One error diagnostic per problem, deduplicated, on `base` + the field's attribute. */
export function problemDiagnostics(base: AttributePath, problems: readonly FieldProblem[], m: ProblemMapping): Diagnostic[] {
  const attributeOf = m.attributeOf ?? ((f: string) => (f in m.values ? f : undefined));
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  for (const p of problems) {
    const fields = [p.field, ...(p.related ?? [])];
    if (fields.some((f) => m.reported?.has(f))) continue;
    // A rule over a value known only after apply cannot be judged yet.
    if (
      fields.some((f) => {
        const a = attributeOf(f);
        return a !== undefined && hasUnknown(m.values[a]);
      })
    )
      continue;
    const attr = attributeOf(p.field);
    const path = attr === undefined ? base : [...base, attr];
    const key = `${showPath(path)}|${p.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const given = fields
      .map((f) => attributeOf(f))
      // A write-only attribute holds a secret: never echoed.
      .filter((a): a is string => a !== undefined && !a.endsWith('_wo') && m.values[a] !== null && m.values[a] !== undefined)
      .map((a) => `${showPath([...base, a])} = ${shown(m.values[a] as Value)}`);
    const others = (p.related ?? []).map((f) => showPath([...base, attributeOf(f) ?? f]));
    const detail = [others.length > 0 ? `This rule involves ${showPath(path)} and ${others.join(' and ')}.` : '', given.length > 0 ? `Given: ${given.join(', ')}.` : '']
      .filter((s) => s !== '')
      .join(' ');
    out.push(errorAt(path, `Invalid ${showPath(path)}: ${p.message}`, detail || undefined));
  }
  return out;
}

/** A value as HCL would spell it (strings quoted, collections inline). */
function shown(v: Value): string {
  if (v === UNKNOWN) return '(known after apply)';
  if (Array.isArray(v)) return `[${v.map(shown).join(', ')}]`;
  if (v !== null && typeof v === 'object')
    return `{ ${Object.entries(v)
      .map(([k, x]) => `${k} = ${shown(x)}`)
      .join(', ')} }`;
  return JSON.stringify(v);
}
