// A pull-request comment fits GitHub's 65,536 characters however large the plan: 3,000 roles, 1,000 deleted and 2,000
// changed, render summarised, deletions first, with exact counts and a pointer to the full plan.

import { meaningsOf } from '../../../src/reconcile/meaning';
import { summarize, type ObjectPlan, type Plan } from '../../../src/reconcile/model';
import { MARKDOWN_LIMIT, renderMarkdown } from '../../../src/reconcile/render-markdown';

function bigPlan(): Plan {
  const objects: ObjectPlan[] = [];
  for (let i = 0; i < 3000; i++) {
    const name = `role-${String(i).padStart(4, '0')}`;
    const o: ObjectPlan =
      i < 1000
        ? {
            id: `auth/gcp/role/${name}`,
            address: { kind: 'role', mount: 'gcp', name },
            action: 'delete',
            reason: 'removed from the desired state',
            changes: [],
            unchangedFields: 0,
          }
        : {
            id: `auth/gcp/role/${name}`,
            address: { kind: 'role', mount: 'gcp', name },
            action: 'update',
            changes: [{ field: 'token_ttl', before: 3600, after: i % 2 ? 7200 : 1800 }],
            unchangedFields: 14,
          };
    o.meanings = meaningsOf({ plan: o, dialect: 'vault' });
    objects.push(o);
  }
  return { formatVersion: 1, server: { address: 'https://vault.example:8200' }, objects, drift: [], summary: summarize(objects), liveDigest: 'sha256:' + '0'.repeat(64) };
}

it('3,000 roles (1,000 deleted, 2,000 changed): at most 65,536 characters, deletions first, counts exact', () => {
  const md = renderMarkdown(bigPlan(), { fullPlanLocation: 'the `keyward-plan.json` artifact of this run' });
  expect(md.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
  expect(md).toContain('**Plan: 0 to create, 2000 to update, 0 to replace, 1000 to delete.**');
  expect(md).toMatch(/\| delete \| 1000 \|/);
  expect(md).toMatch(/\| update \| 2000 \|/);
  expect(md).toMatch(/\| 🔓 broadens access \| 1000 \|/);
  expect(md).toMatch(/\| 🔒 narrows access \| 2000 \|/);
  expect(md).toContain('the `keyward-plan.json` artifact of this run');
  // Named most severe first: every deletion before any update.
  const firstUpdate = md.indexOf('~ auth/gcp/role/');
  const lastDelete = md.lastIndexOf('- auth/gcp/role/');
  expect(lastDelete).toBeGreaterThan(0);
  expect(firstUpdate === -1 || lastDelete < firstUpdate).toBe(true);
  // Whatever is not named is counted, so named + counted = all 3,000.
  const named = (md.match(/^- <code>[-~] auth\/gcp\/role\//gm) ?? []).length;
  const counted = [...md.matchAll(/^- (\d+) × /gm)].reduce((n, m) => n + Number(m[1]), 0);
  expect(named + counted).toBe(3000);
});

it('a plan that fits is rendered whole', () => {
  const p = bigPlan();
  const small = { ...p, objects: p.objects.slice(995, 1005), summary: summarize(p.objects.slice(995, 1005)) };
  const md = renderMarkdown(small);
  expect(md).not.toMatch(/too large for one comment/);
  expect(md).toContain('#### Needs attention');
  expect(md).toContain('<details>');
});
