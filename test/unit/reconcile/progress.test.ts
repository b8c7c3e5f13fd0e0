// Progress output: plain lines name the object and outcome, never values.

import { lineProgress } from '../../../src/reconcile/progress';

test('plain lines per object, failures with their error', () => {
  const lines: string[] = [];
  const p = lineProgress((l) => lines.push(l));
  p.start(2);
  p.done('auth/cloud/role/web', 'create');
  p.done('snapshot/daily', 'update', new Error('PUT failed: HTTP 400: retain must be a positive integer'));
  p.retry?.('GET /v1/sys/auth', 0, 1);
  p.finish();
  expect(lines).toEqual([
    'Applying 2 changes...',
    'auth/cloud/role/web: created',
    'snapshot/daily: update failed: PUT failed: HTTP 400: retain must be a positive integer',
    'retrying GET /v1/sys/auth (attempt 1 got no response)',
  ]);
});
