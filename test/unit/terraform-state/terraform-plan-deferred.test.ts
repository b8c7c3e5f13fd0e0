// Terraform's deferred changes in `keyward show`: a real plan made by Terraform 1.15.5 with deferral allowed
// (test/fixtures/terraform-plan-json/tf1.15.5-deferred.json) through the text, Markdown and JSON renderers. A deferred
// change is shown apart with its resource and reason, decided and labelled like a planned one, counted apart from the
// summary's actions, and part of the reviewed-plan digest (review-digest.ts deferredDigests says why).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runShow } from '../../../src/cli/commands/show-run';
import { FAIL_ON_EXIT_CODE } from '../../../src/reconcile/fail-on';
import type { Plan } from '../../../src/reconcile/model';
import { planJsonSchema } from '../../../src/reconcile/render-json';
import { renderMarkdown } from '../../../src/reconcile/render-markdown';
import { renderText } from '../../../src/reconcile/render-text';
import { decisionsComment, digestMismatch, reviewDigest, reviewedFrom } from '../../../src/reconcile/review-digest';
import { planFromTerraformJson } from '../../../src/terraform-state/terraform-plan';

const FILE = join(__dirname, '../../fixtures/terraform-plan-json/tf1.15.5-deferred.json');
const text = readFileSync(FILE, 'utf8');
const plan = () => planFromTerraformJson(text, 'tfplan.json');

test('the fixture is what Terraform 1.15.5 wrote: two deferred changes with their reasons', () => {
  const tf = JSON.parse(text) as { terraform_version: string; deferred_changes: Array<{ reason: string; resource_change: { address: string; change: { actions: string[] } } }> };
  expect(tf.terraform_version).toBe('1.15.5');
  expect(tf.deferred_changes.map((d) => [d.resource_change.address, d.reason, d.resource_change.change.actions])).toEqual([
    ['keyward_cloud_auth_backend.later[*]', 'instance_count_unknown', ['create']],
    ['keyward_snapshot_auto_config.nightly', 'deferred_prereq', ['update']],
  ]);
});

test('deferred changes are decided and labelled like planned ones, kept out of the objects and counted apart', () => {
  const p = plan();
  expect(p.objects.filter((o) => o.action !== 'no-op').map((o) => [o.id, o.action])).toEqual([['auth/cloud/role/web', 'update']]);
  expect(p.summary).toEqual({ create: 0, update: 1, replace: 0, delete: 0, noop: 1, deferred: 3 });
  expect(p.deferred!.map((d) => [d.object.id, d.object.action, d.resource, d.reason, [...new Set((d.object.meanings ?? []).map((m) => m.label))]])).toEqual([
    ['auth/later', 'create', 'keyward_cloud_auth_backend.later[*]', 'instance_count_unknown', []],
    ['auth/later/role/batch', 'create', 'keyward_cloud_auth_backend.later[*]', 'instance_count_unknown', ['broadens-access']],
    ['snapshot/nightly', 'update', 'keyward_snapshot_auto_config.nightly', 'deferred_prereq', ['reduces-backups']],
  ]);
  expect(p.deferred![2].object.changes).toEqual([{ field: 'retain', before: 5, after: 2 }]);
  expect(p.deferred![0].explanation).toBe('its count or for_each is only known after apply');
  expect(p.deferred![2].explanation).toBe('a resource it depends on is deferred');
});

test('text: a section naming each deferred object, its resource, reason and labels; the summary line counts them apart', () => {
  const out = renderText(plan());
  expect(out).toContain('Plan: 0 to create, 1 to update, 0 to replace, 0 to delete. Deferred by Terraform: 3 objects (not in this plan).');
  const section = out.slice(out.indexOf('Deferred by Terraform: not part of this plan'));
  expect(section).toMatch(
    /\+ auth\/later\/role\/batch will be created\n {6}\[broadens-access\][^\n]*\n {6}\[broadens-access\] bound_service_accounts: any service account in any project/,
  );
  expect(section).toContain('deferred: keyward_cloud_auth_backend.later[*]: instance_count_unknown (its count or for_each is only known after apply)');
  expect(section).toMatch(/~ snapshot\/nightly will be updated in place\n {6}\[reduces-backups\] retain[^\n]*\n {6}~ retain: 5 -> 2/);
  expect(section).toContain('deferred: keyward_snapshot_auto_config.nightly: deferred_prereq (a resource it depends on is deferred)');
  // The planned change is above the section, not in it.
  expect(out.indexOf('~ auth/cloud/role/web will be updated in place')).toBeLessThan(out.indexOf('Deferred by Terraform: not part'));
});

test('Markdown: its own section with reasons and labels, details per object; the head counts them apart', () => {
  const md = renderMarkdown(plan());
  expect(md.split('\n')[0]).toBe('**Plan: 0 to create, 1 to update, 0 to replace, 0 to delete. Deferred by Terraform: 3 objects (not in this plan).** 🔒 narrows access: 1');
  const section = md.slice(md.indexOf('#### Deferred by Terraform'));
  expect(section).toContain(
    '- <code>+ auth/later/role/batch</code> create `broadens-access`: <code>keyward_cloud_auth_backend.later[*]</code> <code>instance_count_unknown</code> (its count or for_each is only known after apply)',
  );
  expect(section).toContain('- <code>~ snapshot/nightly</code> update `reduces-backups`: <code>keyward_snapshot_auto_config.nightly</code> <code>deferred_prereq</code>');
  expect(section).toContain('| <code>retain</code> | <code>5</code> | <code>2</code> |');
  // Not in the needs-attention list or the table's counts of this plan.
  expect(md).not.toContain('#### Needs attention');
  expect(md).toContain('| <code>http://127.0.0.1:18243</code> | root | 0 | 1 | 0 | 0 | 1 |');
  // Summarised past the limit, the count stays.
  expect(renderMarkdown(plan(), { limit: 1500 })).toContain('| deferred by Terraform (not in this plan) | 3 |');
});

test('JSON: `deferred` and `summary.deferred`, valid against the plan schema', () => {
  let out = '';
  expect(runShow(FILE, { format: 'json', applyCommand: 'terraform apply tfplan' }, (s) => (out += s))).toBe(0);
  const json = JSON.parse(out) as Plan;
  expect(planJsonSchema.safeParse(json).success).toBe(true);
  expect(json.summary.deferred).toBe(3);
  expect(json.deferred!.map((d) => d.object.id)).toEqual(['auth/later', 'auth/later/role/batch', 'snapshot/nightly']);
});

test("--detailed-exitcode counts this plan's changes only; --fail-on also names a deferred change, as deferred", () => {
  const show = (flags: { failOn?: string; detailedExitcode?: boolean }) => {
    let err = '';
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((s: string) => ((err += s), true)) as typeof process.stderr.write;
    try {
      return { code: runShow(FILE, { format: 'text', applyCommand: 'x', ...flags }, () => undefined), err };
    } finally {
      process.stderr.write = write;
    }
  };
  expect(show({ detailedExitcode: true }).code).toBe(2);
  const r = show({ failOn: 'broadens-access' });
  expect(r.code).toBe(FAIL_ON_EXIT_CODE);
  expect(r.err).toContain('auth/later/role/batch (deferred by Terraform: keyward_cloud_auth_backend.later[*]): broadens-access');
});

test('the digest covers the deferred set: a plan deferring other changes is not the reviewed one, and says which', () => {
  const p = plan();
  const noDeferred: Plan = { ...p, deferred: undefined, summary: { ...p.summary, deferred: undefined } };
  // Without deferred changes the digest is the one a plan of the same decisions had before deferral existed.
  expect(reviewDigest(noDeferred)).not.toBe(reviewDigest(p));
  expect(reviewDigest(planFromTerraformJson(text.replace('"timestamp":"2026-11-28T15:28:05Z"', '"timestamp":"2026-11-29T00:00:00Z"'), 'later.json'))).toBe(reviewDigest(p));
  // The PR comment's decisions comment carries the deferred changes' digests, so a mismatch can name them.
  expect(reviewedFrom(`${renderMarkdown(p)}\n${decisionsComment(p)}`)).toEqual({ digest: reviewDigest(p), objects: expect.any(Object), deferred: expect.any(Object) });
  const fewer: Plan = { ...p, deferred: p.deferred!.filter((d) => d.object.id !== 'auth/later/role/batch') };
  const full = reviewedFrom(JSON.stringify(p))!;
  expect(full.deferred).toEqual(expect.objectContaining({ 'auth/later/role/batch': expect.stringMatching(/^[0-9a-f]{16}$/) }));
  expect(digestMismatch(fewer, full)).toContain('- auth/later/role/batch: deferred in the reviewed plan, not now');
  expect(digestMismatch(p, reviewedFrom(JSON.stringify(fewer))!)).toContain('+ auth/later/role/batch: deferred by Terraform now, not deferred in the reviewed plan');
  // The same change planned instead of deferred is a different plan too.
  const planned: Plan = { ...fewer, objects: [...p.objects, p.deferred!.find((d) => d.object.id === 'auth/later/role/batch')!.object] };
  expect(reviewDigest(planned)).not.toBe(reviewDigest(p));
});
