// What a reviewed pull-request plan asks of the commands that plan and apply: `--fail-on LABELS` (or cdktf.json's
// `keyward.failOn`) fails the plan with its own exit code, naming the objects whose change carries such a label (and a
// change apply refuses fails it with the same code, the built-in rule, with or without the flag);
// `--expect-digest D|FILE` refuses a plan whose decisions are not the ones reviewed, naming what differs. One
// module for `keyward plan`, `keyward show` and `keyward apply`.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FAIL_ON_EXIT_CODE, failOnHits, failOnMessage, parseFailOn, refusedMessage } from '../reconcile/fail-on';
import type { MeaningLabel, Plan } from '../reconcile/model';
import { digestMismatch, reviewedFrom, type ReviewedDecisions } from '../reconcile/review-digest';

/** The --fail-on labels: the flag, else cdktf.json's `keyward.failOn` in the working directory, else none. */
export function failOnLabels(flag: string | undefined, cwd = process.cwd()): MeaningLabel[] {
  if (flag !== undefined) return parseFailOn(flag, '--fail-on');
  const file = join(cwd, 'cdktf.json');
  if (!existsSync(file)) return [];
  let json: { keyward?: { failOn?: unknown } };
  try {
    json = JSON.parse(readFileSync(file, 'utf8')) as typeof json;
  } catch (e) {
    throw new Error(`${file}: not JSON (${(e as Error).message}), read for keyward.failOn`);
  }
  const list = json.keyward?.failOn;
  if (list === undefined) return [];
  if (!Array.isArray(list) || list.some((x) => typeof x !== 'string')) throw new Error(`${file}: keyward.failOn must be a list of label names`);
  return parseFailOn(list as string[], `${file}: keyward.failOn`);
}

/**
 * The exit code the rules give (FAIL_ON_EXIT_CODE) with its message on stderr, or undefined when none fails: the
 * --fail-on matches, then, apart, the changes apply refuses (the built-in rule, with or without --fail-on).
 */
export function failOnGate(plan: Plan, labels: readonly MeaningLabel[], err: (s: string) => void = (s) => process.stderr.write(s)): number | undefined {
  const hits = labels.length === 0 ? [] : failOnHits(plan, labels);
  const refused = refusedMessage(plan);
  if (hits.length === 0 && refused === undefined) return undefined;
  err(`${[...(hits.length ? [failOnMessage(hits)] : []), ...(refused ? [refused] : [])].join('\n')}\n`);
  return FAIL_ON_EXIT_CODE;
}

/** Refuses (throws) a plan that is not the one reviewed: `expected` is a digest or a file with the reviewed plan. */
export function expectDigest(plan: Plan, expected: string | undefined): void {
  if (expected === undefined) return;
  let reviewed: ReviewedDecisions | undefined;
  if (/^sha256:[0-9a-f]{64}$/.test(expected)) reviewed = { digest: expected };
  else {
    if (!existsSync(expected)) throw new Error(`--expect-digest: ${expected} is neither a digest (sha256:…) nor a file`);
    reviewed = reviewedFrom(readFileSync(expected, 'utf8'));
    if (!reviewed) throw new Error(`--expect-digest: ${expected} holds no reviewed plan (a keyward JSON plan, or a Markdown plan with its keyward-decisions comment)`);
  }
  const mismatch = digestMismatch(plan, reviewed);
  if (mismatch) throw new Error(`--expect-digest: ${mismatch}`);
}
