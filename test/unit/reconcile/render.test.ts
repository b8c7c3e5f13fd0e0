// Renderers: golden files for text and Markdown (a missing one fails; UPDATE_GOLDEN=1 writes them), the JSON plan
// against its schema, and no secret value in any rendering.

import { join } from 'node:path';
import { diff } from '../../../src/reconcile/diff';
import { summarize, type Plan } from '../../../src/reconcile/model';
import { planJsonSchema, renderJson } from '../../../src/reconcile/render-json';
import { renderMarkdown } from '../../../src/reconcile/render-markdown';
import { renderText } from '../../../src/reconcile/render-text';
import { expectGolden } from '../../support/golden';
import { fixtureDesired, fixtureLive, fixtureRecord, SECRET_NEW, SECRET_OLD } from './fixtures';

const GOLDEN = join(__dirname, '../../golden/reconcile');

function fixturePlan(): Plan {
  const desired = fixtureDesired();
  const { objects, drift } = diff(desired, fixtureLive(), fixtureRecord(desired));
  return {
    formatVersion: 1,
    server: { address: 'https://vault.example:8200', namespace: 'team-a' },
    objects,
    drift,
    summary: summarize(objects),
    liveDigest: 'sha256:' + 'ab'.repeat(32),
  };
}

const emptyPlan = (): Plan => ({
  formatVersion: 1,
  server: { address: 'http://127.0.0.1:8200' },
  objects: [],
  drift: [],
  summary: summarize([]),
  liveDigest: 'sha256:' + '00'.repeat(32),
});

const golden = (name: string, actual: string): string => expectGolden(join(GOLDEN, name), actual);

test('text rendering matches the golden file', () => {
  golden('plan.txt', renderText(fixturePlan()));
});
test('Markdown rendering matches the golden file', () => void golden('plan.md', renderMarkdown(fixturePlan(), { applyCommand: 'keyward apply --plan plan.bin' })));

/** The fixture plan cut down to some actions (and its drift or none), for one Markdown case each. */
function subset(actions: readonly string[], drift: boolean): Plan {
  const p = fixturePlan();
  const objects = p.objects.filter((o) => actions.includes(o.action));
  return { ...p, objects, drift: drift ? p.drift : [], summary: summarize(objects) };
}

describe('Markdown cases (golden files)', () => {
  test('creates only: nothing needs attention, the apply hint at the bottom', () => {
    const md = golden('md-create-only.md', renderMarkdown(subset(['create'], false)));
    expect(md).not.toContain('#### Needs attention');
    expect(md.trimEnd().split('\n').pop()).toBe('To apply this plan: <code>keyward apply</code>');
  });
  test('deletes and replaces: listed first under "Needs attention", before the sections', () => {
    const md = golden('md-destructive.md', renderMarkdown(subset(['delete', 'replace', 'no-op'], false), { applyCommand: "keyward apply --app 'npx tsx main.ts'" }));
    const lines = md.split('\n');
    expect(lines[0]).toBe('**Plan: 0 to create, 0 to update, 1 to replace, 2 to delete.**');
    expect(md.indexOf('#### Needs attention')).toBeLessThan(md.indexOf('<details>'));
    expect(md).toContain('- <code>-/+ auth/cloud/role/batch</code> replace (type cannot change in place)');
    expect(md).toContain('- <code>- auth/cloud/role/old</code> delete (removed from the desired state)');
    // Deletions before the replacement; a deletion's section shows what is deleted.
    expect(md.indexOf('- <code>- auth/cloud/role/old</code>')).toBeLessThan(md.indexOf('- <code>-/+ auth/cloud/role/batch</code>'));
    expect(md).toContain('| field | deleted value |');
  });
  test('drift: its own section after the changes', () => {
    const md = golden('md-drift.md', renderMarkdown(subset(['update'], true)));
    expect(md).toContain('#### Drift');
    expect(md.indexOf('#### Drift')).toBeGreaterThan(md.lastIndexOf('</details>'));
  });
  test('one collapsed section per changed object', () => {
    const p = fixturePlan();
    const md = renderMarkdown(p);
    expect(md.match(/<details>/g)).toHaveLength(p.objects.filter((o) => o.action !== 'no-op').length);
  });
  test('no changes: the summary line, no sections and no apply hint', () => {
    const md = renderMarkdown(emptyPlan());
    expect(md).not.toContain('<details>');
    expect(md).not.toContain('To apply');
  });
});
test('an empty plan renders as no changes', () => {
  golden('empty.txt', renderText(emptyPlan()));
  golden('empty.md', renderMarkdown(emptyPlan()));
});

test('the summary line counts actions', () => {
  expect(renderText(fixturePlan())).toContain('Plan: 1 to create, 3 to update, 1 to replace, 2 to delete.');
});

test('the JSON plan satisfies its schema and round-trips', () => {
  const p = fixturePlan();
  const parsed = planJsonSchema.parse(JSON.parse(renderJson(p)));
  expect(parsed).toEqual(JSON.parse(JSON.stringify(p)));
});

test('the JSON schema refuses a value in a sensitive change', () => {
  const p = JSON.parse(renderJson(fixturePlan()));
  p.objects.find((o: { id: string }) => o.id === 'auth/cloud/config').changes[0].after = 'leaked';
  expect(planJsonSchema.safeParse(p).success).toBe(false);
});

test('Markdown escapes table and HTML specials', () => {
  const md = renderMarkdown(fixturePlan());
  expect(md).toContain('ops&#124;&lt;admin&gt;&#96;x&#96;');
  expect(md).not.toContain('<admin>');
});

test('no rendering contains a secret value', () => {
  const p = fixturePlan();
  for (const out of [renderText(p), renderMarkdown(p), renderJson(p)]) {
    expect(out).not.toContain(SECRET_NEW);
    expect(out).not.toContain(SECRET_OLD);
    expect(out).toContain('sensitive');
  }
});
