// The reviewed-plan digest: the same decisions give the same digest whatever the live read or the time, a
// creation's defaults do not count, secrets count by marker only, and a mismatch names what differs.

import { digestMismatch, decisionsComment, objectDigests, reviewDigest, reviewedFrom } from '../../../src/reconcile/review-digest';
import { summarize, type ObjectPlan, type Plan } from '../../../src/reconcile/model';

const plan = (objects: ObjectPlan[], liveDigest = 'sha256:' + '0'.repeat(64)): Plan => ({
  formatVersion: 1,
  server: { address: 'http://127.0.0.1:8200' },
  objects,
  drift: [],
  summary: summarize(objects),
  liveDigest,
});
const role = (name: string, action: ObjectPlan['action'], changes: ObjectPlan['changes']): ObjectPlan => ({
  id: `auth/gcp/role/${name}`,
  address: { kind: 'role', mount: 'gcp', name },
  action,
  changes,
  unchangedFields: 0,
});

describe('review digest', () => {
  const a = plan([role('web', 'update', [{ field: 'token_ttl', before: 60, after: 120 }]), role('old', 'delete', [{ field: 'type', before: 'iam' }])]);
  it('does not depend on the live read, the before values or no-op objects', () => {
    const b = plan([role('old', 'delete', []), role('web', 'update', [{ field: 'token_ttl', before: 30, after: 120 }]), role('same', 'no-op', [])], 'sha256:' + '1'.repeat(64));
    expect(reviewDigest(b)).toBe(reviewDigest(a));
  });
  it("a creation's fields at their defaults do not count (one path lists them, the other need not)", () => {
    const withDefaults = plan([
      role('n', 'create', [
        { field: 'type', after: 'iam' },
        { field: 'token_ttl', after: 0 },
        { field: 'token_policies', after: [] },
      ]),
    ]);
    const declared = plan([role('n', 'create', [{ field: 'type', after: 'iam' }])]);
    expect(reviewDigest(withDefaults)).toBe(reviewDigest(declared));
  });
  it('changes with any decision: a value, an action, an object', () => {
    expect(reviewDigest(plan([role('web', 'update', [{ field: 'token_ttl', after: 121 }])]))).not.toBe(
      reviewDigest(plan([role('web', 'update', [{ field: 'token_ttl', after: 120 }])])),
    );
    expect(reviewDigest(plan([role('web', 'replace', [])]))).not.toBe(reviewDigest(plan([role('web', 'update', [])])));
  });
  it('a mismatch names the objects that differ when the reviewed decisions are known', () => {
    const reviewed = reviewedFrom(`comment text\n${decisionsComment(a)}\n`)!;
    expect(digestMismatch(a, reviewed)).toBeUndefined();
    const now = plan([role('web', 'update', [{ field: 'token_ttl', before: 60, after: 7200 }]), role('new', 'create', [{ field: 'type', after: 'iam' }])]);
    const msg = digestMismatch(now, reviewed)!;
    expect(msg).toMatch(/not the one reviewed/);
    expect(msg).toContain('~ auth/gcp/role/web: a different change than the one reviewed');
    expect(msg).toContain('+ auth/gcp/role/new: changed now, not in the reviewed plan');
    expect(msg).toContain('- auth/gcp/role/old: in the reviewed plan, unchanged now');
    expect(digestMismatch(now, { digest: reviewDigest(a) })).toMatch(/This plan changes 2 objects: auth\/gcp\/role\/new, auth\/gcp\/role\/web/);
  });
  it('reads a JSON plan as the reviewed decisions', () => {
    expect(reviewedFrom(JSON.stringify(a))).toEqual({ digest: reviewDigest(a), objects: objectDigests(a) });
  });
});
