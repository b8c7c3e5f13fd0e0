// The digest of a plan's decisions, so that what is applied at merge is what was reviewed in the pull request:
// objects, actions, field values and secret fingerprints, never secret values, times, or the live read. The same
// decisions give the same digest however the plan was made (`keyward plan --dir` from Terraform's state in the PR,
// `keyward show` of the merge-time Terraform plan, `keyward plan` again an hour later).
// A digest names no object; a reviewed plan file (the JSON plan, or the PR comment, which carries each object's
// digest in an HTML comment) lets a mismatch name the objects that differ.

import { createHash } from 'node:crypto';
import { isFieldDefault } from './field-defaults';
import { stableJson, type Json, type ObjectPlan, type Plan } from './model';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** One object's decision, in the form both plan paths agree on: a creation's defaults folded away. */
function decision(o: ObjectPlan): Json {
  const changes = o.changes
    .filter((c) => o.action !== 'create' || c.sensitive || !isFieldDefault(o.address.kind, c.field, c.after))
    .map((c) => ({ field: c.field, after: c.sensitive ? (c.after === null ? 'unset' : 'sensitive') : (c.after ?? null) }))
    .sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
  return { id: o.id, action: o.action, changes: o.action === 'delete' ? [] : changes };
}

/** Each changed object's decision digest (16 hex characters), by object id. */
export function objectDigests(p: Plan): Record<string, string> {
  const out: Record<string, string> = {};
  for (const o of p.objects.filter((x) => x.action !== 'no-op').sort((a, b) => (a.id < b.id ? -1 : 1))) out[o.id] = sha(stableJson(decision(o))).slice(0, 16);
  return out;
}

/**
 * Each change Terraform deferred (`keyward show`), by object id, digested as a planned one is.
 *
 * Why deferred changes are in the digest although this run does not apply them: the digest answers "is this what the
 * reviewer approved?", and a deferred change is part of what the merged code commits to — Terraform makes it on a
 * later run (often the next merge's deploy, whose reviewed plan is of another pull request) without anyone reviewing
 * this pull request's code again. A merge-time plan whose deferred set differs from the reviewed one (a `*` role
 * deferred at merge that the reviewer never saw, or a reviewed planned change now deferred) is therefore not the
 * reviewed plan, and `--expect-digest` says which objects differ. A refusal costs a re-plan and a second look; a
 * difference let through costs an unreviewed change. They are kept apart from the planned objects (a change deferred
 * and the same change planned digest differently), and a plan without deferred changes digests as before.
 */
export function deferredDigests(p: Plan): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of [...(p.deferred ?? [])].sort((a, b) => (a.object.id < b.object.id ? -1 : 1))) out[d.object.id] = sha(stableJson(decision(d.object))).slice(0, 16);
  return out;
}

/** The plan's digest: its server and namespace, every object's decision, and the deferred changes (when any). */
export function reviewDigest(p: Plan): string {
  const deferred = deferredDigests(p);
  return (
    'sha256:' + sha(stableJson({ server: p.server.address, namespace: p.server.namespace ?? '', objects: objectDigests(p), ...(Object.keys(deferred).length ? { deferred } : {}) }))
  );
}

/** What a reviewed plan says of its decisions: its digest, and where known each object's (and deferred change's). */
export interface ReviewedDecisions {
  digest: string;
  objects?: Record<string, string>;
  deferred?: Record<string, string>;
}

const MARK = 'keyward-decisions';
/** The HTML comment a PR comment carries (invisible on GitHub and GitLab), for naming differences later. */
export const decisionsComment = (p: Plan): string => `<!-- ${MARK} ${JSON.stringify(decisionsOf(p))} -->`;

function decisionsOf(p: Plan): ReviewedDecisions {
  const deferred = deferredDigests(p);
  return { digest: reviewDigest(p), objects: objectDigests(p), ...(Object.keys(deferred).length ? { deferred } : {}) };
}

/** Reads the reviewed decisions from a JSON plan or from text holding the decisions comment. */
export function reviewedFrom(text: string): ReviewedDecisions | undefined {
  const m = new RegExp(`<!-- ${MARK} (\\{.*?\\}) -->`).exec(text);
  if (m) return JSON.parse(m[1]) as ReviewedDecisions;
  try {
    const plan = JSON.parse(text) as Plan;
    if (Array.isArray(plan.objects)) return decisionsOf(plan);
  } catch {
    // not JSON
  }
  return undefined;
}

/**
 * Checks the plan against what was reviewed: a digest (`sha256:…`) or the reviewed decisions. Undefined when it
 * matches; otherwise what differs, object by object where the reviewed decisions are known.
 */
export function digestMismatch(p: Plan, expected: ReviewedDecisions): string | undefined {
  const now = reviewDigest(p);
  if (now === expected.digest) return undefined;
  const head = `the plan is not the one reviewed: its digest is ${now}, the reviewed plan's ${expected.digest}`;
  const current = objectDigests(p);
  if (!expected.objects) {
    const ids = Object.keys(current);
    return `${head}. This plan changes ${ids.length} object${ids.length === 1 ? '' : 's'}: ${ids.slice(0, 20).join(', ')}${ids.length > 20 ? ', …' : ''}`;
  }
  const lines: string[] = [];
  for (const [id, d] of Object.entries(current)) {
    if (!(id in expected.objects)) lines.push(`  + ${id}: changed now, not in the reviewed plan`);
    else if (expected.objects[id] !== d) lines.push(`  ~ ${id}: a different change than the one reviewed`);
  }
  for (const id of Object.keys(expected.objects)) if (!(id in current)) lines.push(`  - ${id}: in the reviewed plan, unchanged now`);
  const deferred = deferredDigests(p);
  const reviewedDeferred = expected.deferred ?? {};
  for (const [id, d] of Object.entries(deferred)) {
    if (!(id in reviewedDeferred)) lines.push(`  + ${id}: deferred by Terraform now, not deferred in the reviewed plan`);
    else if (reviewedDeferred[id] !== d) lines.push(`  ~ ${id}: a different deferred change than the one reviewed`);
  }
  for (const id of Object.keys(reviewedDeferred)) if (!(id in deferred)) lines.push(`  - ${id}: deferred in the reviewed plan, not now`);
  return `${head}:\n${lines.join('\n')}`;
}
