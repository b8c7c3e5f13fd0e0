// A pull-request plan without production secrets: `keyward plan --plan-only` (or KEYWARD_PLAN_ONLY=1)
// takes an unset secret as unchanged (the fingerprint of the last apply), still plans other edits,
// and lists the secrets it took; such a plan is not saved; apply without the secret fails naming
// the variable, and apply in plan-only mode is refused. Real engine, in-process CLI.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { planJsonSchema } from '../../../src/reconcile/render-json';
import { runKeyward } from '../../support/keyward-in-process';
import { cloudOneSnapshot, iamRole, manifest, serviceAccountKey, withCliEngine } from './helpers';

let work: string;
withCliEngine('keyward-plan-only-', (_engine, w) => {
  work = w;
});

test('unset secrets taken as unchanged and listed; apply needs them', async () => {
  const creds = serviceAccountKey('po-key');
  const snapshot = cloudOneSnapshot('po-offsite', 'PO_S3');
  const m = (ttl: number) =>
    manifest({
      authBackends: [{ path: 'po', type: 'cloud', config: { credentials: { secretRef: { env: 'PO_CREDS' } } }, roles: [iamRole('web', { token_ttl: ttl })] }],
      snapshotConfigs: [snapshot],
    });
  const file = join(work, 'm.json');
  writeFileSync(file, JSON.stringify(m(60)));
  process.env.PO_CREDS = creds;
  process.env.PO_S3 = 's3-secret-po';
  expect((await runKeyward('apply', '--manifest', file, '--auto-approve')).code).toBe(0);

  delete process.env.PO_CREDS;
  delete process.env.PO_S3;
  // Without plan-only mode the plan needs the secrets, naming the variable.
  const refused = await runKeyward('plan', '--manifest', file);
  expect(refused.code).toBe(1);
  expect(refused.err).toContain('reads environment variable PO_CREDS, which is not set');

  writeFileSync(file, JSON.stringify(m(120)));
  const plan = await runKeyward('plan', '--manifest', file, '--plan-only', '--detailed-exitcode');
  expect({ code: plan.code, err: plan.err }).toEqual({ code: 2, err: '' });
  expect(plan.out).toContain(
    'Plan only: 2 secrets not set, taken as unchanged (the fingerprint of the last apply); applying needs them:\n  PO_CREDS (auth/po/config credentials)\n  PO_S3 (snapshot/po-offsite cloudone_secret_access_key)',
  );
  expect(plan.out).toContain('~ token_ttl: 60 -> 120');
  expect(plan.out).toContain('Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.');
  expect(plan.out).not.toContain('(sensitive');

  process.env.KEYWARD_PLAN_ONLY = '1';
  const md = await runKeyward('plan', '--manifest', file, '--format', 'markdown');
  expect(md.out).toContain('> [!NOTE]\n> Plan only: 2 secrets not set');
  const js = await runKeyward('plan', '--manifest', file, '--format', 'json');
  const parsed = planJsonSchema.parse(JSON.parse(js.out));
  expect(parsed.unsetSecrets).toEqual([
    { id: 'auth/po/config', field: 'credentials', env: 'PO_CREDS' },
    { id: 'snapshot/po-offsite', field: 'cloudone_secret_access_key', env: 'PO_S3' },
  ]);
  expect((await runKeyward('plan', '--manifest', file, '--out', join(work, 'p.bin'))).err).toContain('--out: a plan-only plan');
  const applyPlanOnly = await runKeyward('apply', '--manifest', file, '--auto-approve');
  expect(applyPlanOnly.code).toBe(1);
  expect(applyPlanOnly.err).toContain('KEYWARD_PLAN_ONLY is set: this run may only plan');
  delete process.env.KEYWARD_PLAN_ONLY;

  const apply = await runKeyward('apply', '--manifest', file, '--auto-approve');
  expect(apply.code).toBe(1);
  expect(apply.err).toContain('PO_CREDS');
  expect(apply.err).toContain('not set');
});
