// Construction-time validation in the AWS CDK style: each construct keeps its rules as a table in a
// sibling file; every failing rule is reported at once, naming the construct path.

import { Token } from './cdk';
import { Construct } from 'constructs';

/** One rule: returns the problems it finds in the props (empty when the props pass). */
export interface ValidationRule<P> {
  /** Short stable id, used by tests to show each rule has a failing case. */
  readonly id: string;
  readonly check: (props: P) => readonly string[];
}

/** Thrown at construction when props break rules; `problems` holds one message per failure. */
export class KeywardValidationError extends Error {
  readonly problems: readonly string[];
  readonly constructPath: string;
  constructor(constructPath: string, className: string, problems: readonly string[]) {
    super(`${className} at ${constructPath} failed validation:\n${problems.map((p) => `- ${p}`).join('\n')}`);
    this.name = 'KeywardValidationError';
    this.problems = problems;
    this.constructPath = constructPath;
  }

  /** Brand check that survives duplicate copies of this module (no instanceof). */
  static isKeywardValidationError(e: unknown): e is KeywardValidationError {
    return e instanceof Error && e.name === 'KeywardValidationError' && Array.isArray((e as KeywardValidationError).problems);
  }
}

/** Runs every rule and throws one error listing all problems, or returns quietly. */
export function validateAll<P>(scope: Construct, className: string, props: P, rules: readonly ValidationRule<P>[]): void {
  const problems = rules.flatMap((r) => r.check(props));
  if (problems.length > 0) throw new KeywardValidationError(scope.node.path, className, problems);
}

/** True when a value still holds an unresolved Terraform token (such values are not validated). */
export function isToken(v: unknown): boolean {
  return v !== undefined && v !== null && Token.isUnresolved(v);
}

/** The items of a list prop that can be validated now (the list itself may be a token). */
export function concreteItems(list: readonly string[] | undefined): string[] {
  if (list === undefined || isToken(list)) return [];
  return list.filter((s) => !isToken(s));
}

/** A problem when `value` is set, concrete and `bad` says so. */
export function when<T>(value: T | undefined, bad: (v: T) => string | undefined): string[] {
  if (value === undefined || isToken(value)) return [];
  const p = bad(value);
  return p ? [p] : [];
}
