// The differences docs/engine.md lists ("Differences from OpenBao"), read from the doc itself so the
// list a reader sees is the list the suites hold the engine to. Each row of the section's tables is
// `| suite | request | field | reason |`; request and field may use `*` (any characters).

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export const ENGINE_DOC = resolve(__dirname, '..', '..', '..', 'docs', 'engine.md');
const SECTION = '## Differences from OpenBao';

export interface DocumentedDifference {
  suite: string;
  request: string;
  field: string;
  reason: string;
}

export interface Observed {
  suite: string;
  request: string;
  field: string;
  openbao?: string;
  engine?: string;
}

const cell = (s: string) => s.trim().replace(/^`|`$/g, '');

export function documentedDifferences(suite: string): DocumentedDifference[] {
  const text = readFileSync(ENGINE_DOC, 'utf8');
  const start = text.indexOf(SECTION);
  if (start < 0) throw new Error(`${ENGINE_DOC} has no "${SECTION}" section`);
  const rest = text.slice(start + SECTION.length);
  const end = rest.search(/\n## /);
  const rows: DocumentedDifference[] = [];
  for (const line of (end < 0 ? rest : rest.slice(0, end)).split('\n')) {
    const m = /^\|(.*)\|\s*$/.exec(line);
    if (!m) continue;
    const cells = m[1].split(/(?<!\\)\|/).map(cell);
    if (cells.length < 4 || cells[0] === 'suite' || /^-+$/.test(cells[0])) continue;
    if (cells[0] === suite) rows.push({ suite: cells[0], request: cells[1], field: cells[2], reason: cells.slice(3).join('|').trim() });
  }
  return rows;
}

const glob = (p: string) => new RegExp(`^${p.replace(/[.+?^${}()[\]\\|]/g, '\\$&').replace(/\*/g, '.*')}$`);

export const matches = (d: DocumentedDifference, o: Observed) => glob(d.request).test(o.request) && glob(d.field).test(o.field);

/** Observed differences no row explains, and rows no observation needs: both must be empty. */
export function reconcile(documented: DocumentedDifference[], observed: Observed[]): { unlisted: Observed[]; unobserved: DocumentedDifference[] } {
  return {
    unlisted: observed.filter((o) => !documented.some((d) => matches(d, o))),
    unobserved: documented.filter((d) => !observed.some((o) => matches(d, o))),
  };
}

/** One line per difference, ready to paste into the doc's table (for a failing run's message). */
export const describeObserved = (o: Observed) => `| ${o.suite} | \`${o.request}\` | \`${o.field}\` | openbao ${o.openbao ?? '(absent)'} / engine ${o.engine ?? '(absent)'} |`;
