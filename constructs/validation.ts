// Construction-time validation in the AWS CDK style: each construct keeps its rules as a table in a
// sibling file; every failing rule is reported at once, naming the construct path.

import { TerraformStack, Token, type TerraformStackType } from './cdk';
import { Construct } from 'constructs';
import { synthError } from './synth-error';

/** One rule: returns the problems it finds in the props (empty when the props pass). */
export interface ValidationRule<P> {
  /** Short stable id, used by tests to show each rule has a failing case. */
  readonly id: string;
  /** `scope` is the construct being validated (for rules about where it sits in the tree). */
  readonly check: (props: P, scope: Construct) => readonly string[];
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
  const problems = rules.flatMap((r) => r.check(props, scope));
  if (problems.length > 0) throw synthError(new KeywardValidationError(scope.node.path, className, problems));
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

/** Edit distance, for "did you mean" hints on misspelled props (plain JavaScript callers). */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[y.length];
}

/** The known name closest to `name`, when close enough to be a likely misspelling. */
export function closest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = distance(name, k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  const lower = name.toLowerCase();
  const prefix = best !== undefined && (best.toLowerCase().startsWith(lower) || lower.startsWith(best.toLowerCase()));
  return best !== undefined && (bestD <= Math.max(2, Math.floor(name.length / 3)) || prefix) ? best : undefined;
}

/**
 * Props the construct does not know (TypeScript refuses them; JavaScript and `as any` do not):
 * one problem each, with the closest known name as a hint. `where` prefixes nested objects.
 */
export function unknownProps(value: unknown, known: readonly string[], where = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || isToken(value)) return [];
  return Object.keys(value)
    .filter((k) => !known.includes(k) && (value as Record<string, unknown>)[k] !== undefined)
    .map((k) => {
      const hint = closest(k, known);
      return `unknown prop ${where}${k}${hint ? ` (did you mean ${where}${hint}?)` : ''}; known props: ${known.join(', ')}`;
    });
}

/** Durations given as numbers are whole seconds: the server refuses fractions, so refuse them at synth. */
export function fractionalSeconds(name: string, value: unknown): string[] {
  if (typeof value !== 'number' || isToken(value) || !Number.isFinite(value) || Number.isInteger(value)) return [];
  return [`${name}: ${value} is not a whole number of seconds (give whole seconds, such as ${Math.max(1, Math.round(value))}, or a duration string such as "90s")`];
}

/** The stack a construct belongs to, or undefined outside any stack. */
function stackOf(c: Construct): TerraformStackType | undefined {
  try {
    return TerraformStack.of(c);
  } catch {
    return undefined;
  }
}

/**
 * A referenced keyward construct (a role's backend, a backend's server) must be in the same stack:
 * each stack synthesizes its own manifest, so a cross-stack reference would silently drop objects.
 */
export function sameStack(scope: Construct, ref: unknown, prop: string): string[] {
  if (!Construct.isConstruct(ref)) return [];
  const mine = stackOf(scope);
  const theirs = stackOf(ref);
  if (!mine || !theirs || mine === theirs) return [];
  return [`${prop} ${ref.node.path} belongs to stack ${theirs.node.path}, not to this construct's stack ${mine.node.path}: declare both in the same TerraformStack`];
}
