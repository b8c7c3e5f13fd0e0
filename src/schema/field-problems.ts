// A validation failure tied to the field that holds the bad value (and, for a rule between fields,
// the other fields it involves), so callers can point at the field: the Terraform provider turns
// each into one diagnostic on its attribute path. The message text stays the server's.

import { ApiError } from './errors';

export interface FieldProblem {
  /** The field whose value breaks the rule (a rule between fields names one of them here). */
  field: string;
  message: string;
  /** The other fields a cross-field rule involves. */
  related?: string[];
}

/** A 400 carrying every problem found, each with its field (the `errors` list holds the messages). */
export class FieldProblemsError extends ApiError {
  constructor(readonly problems: FieldProblem[]) {
    super(
      'invalid_request',
      problems.map((p) => p.message),
    );
  }
}

/** The field problems an error carries, if it is a FieldProblemsError (or wraps one as `problems`). */
export function fieldProblemsOf(e: unknown): FieldProblem[] | undefined {
  const p = (e as { problems?: unknown } | null)?.problems;
  return e instanceof Error && Array.isArray(p) ? (p as FieldProblem[]) : undefined;
}

/**
 * Where a rule reports: `collect` set = record and go on (all problems in one pass); unset = throw
 * the first as a plain 400, as the server does (Vault answers one message per request).
 */
export function problemSink(collect: FieldProblem[] | undefined): (field: string, message: string, related?: string[]) => void {
  return (field, message, related) => {
    if (!collect) throw new ApiError('invalid_request', [message]);
    const key = (p: FieldProblem) => `${p.field}|${(p.related ?? []).join(',')}`;
    const problem: FieldProblem = related && related.length > 0 ? { field, message, related } : { field, message };
    // A cross-field rule checked twice (write then whole-role validation) is one problem.
    if (problem.related && collect.some((p) => key(p) === key(problem))) return;
    collect.push(problem);
  };
}
