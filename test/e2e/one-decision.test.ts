// Issue 29's scenario table (test/e2e/scenarios/table.ts) through both paths a user has: the CLI
// (`keyward plan/apply/destroy --manifest`) and the provider (real terraform 1.11 on HCL), each
// against a fresh Vault contract server. A behaviour that differs between them fails here.

import { FAIL_ON_EXIT_CODE } from '../../src/reconcile/fail-on';
import { serviceAccountKey } from '../integration/reconcile/helpers';
import { startVaultContract } from '../support/vault-contract/server';
import { openPath, type PathDriver, type Run } from './scenarios/paths';
import { SCENARIOS, type Step } from './scenarios/table';

const ENV = { KW_CREDS: serviceAccountKey('declared-1'), KW_CREDS2: serviceAccountKey('declared-2'), KW_AZ: 'az-key-value' };
/** Terraform boxes and wraps diagnostics: compare text with the box and line breaks removed. */
const flat = (s: string) => s.replace(/[│╷╵]/g, ' ').replace(/\s+/g, ' ');

async function runStep(p: PathDriver, vault: Awaited<ReturnType<typeof startVaultContract>>, step: Step, where: string): Promise<void> {
  const ok = (r: Run, what: string) => expect({ where, what, code: r.code, out: r.code === 0 ? '' : r.out.slice(-3000) }).toEqual({ where, what, code: 0, out: '' });
  const has = (out: string, res: RegExp[] | undefined, not = false) => {
    for (const re of res ?? []) expect({ where, re: String(re), found: re.test(flat(out)) }).toEqual({ where, re: String(re), found: !not });
  };
  if ('apply' in step) {
    const r = await p.apply(step.apply, { force: step.force });
    ok(r, 'apply');
    has(r.out, step.out);
  } else if ('plan' in step) {
    const r = await p.plan(step.plan, { force: step.force });
    ok(r, 'plan');
    if (step.changes !== undefined)
      expect({ where, changes: r.changes, out: r.changes === step.changes ? '' : r.out.slice(-3000) }).toEqual({ where, changes: step.changes, out: '' });
    has(r.out, step.out);
    has(r.out, step.notOut, true);
  } else if ('refuses' in step) {
    const r = await p.plan(step.refuses);
    expect({ where, code: r.code === 0 ? 0 : 1, refused: step.out.test(flat(r.out)), out: step.out.test(flat(r.out)) ? '' : r.out.slice(-3000) }).toEqual({
      where,
      code: 1,
      refused: true,
      out: '',
    });
  } else if ('applyRefuses' in step) {
    // The CLI's plan is produced for review, labelled, and fails under the built-in rule; Terraform's plan has no labels,
    // so its provider refuses at plan (src/terraform/resources/role-server-rules.ts).
    const plan = await p.plan(step.applyRefuses);
    const labelled = p.name === 'cli' ? /\[locks-out\] bound_service_accounts: .*keyward apply and the Terraform provider refuse to write it/.test(flat(plan.out)) : true;
    expect({ where, code: plan.code, said: step.out.test(flat(plan.out)), labelled, out: step.out.test(flat(plan.out)) && labelled ? '' : plan.out.slice(-3000) }).toEqual({
      where,
      code: p.name === 'cli' ? FAIL_ON_EXIT_CODE : 1,
      said: true,
      labelled: true,
      out: '',
    });
    const apply = await p.apply(step.applyRefuses);
    expect({ where, code: apply.code, said: step.out.test(flat(apply.out)), out: step.out.test(flat(apply.out)) ? '' : apply.out.slice(-3000) }).toEqual({
      where,
      code: 1,
      said: true,
      out: '',
    });
  } else if ('cliRefuses' in step) {
    if (p.name !== 'cli') return;
    const r = await p.plan(step.cliRefuses);
    expect({ where, code: r.code, refused: step.out.test(flat(r.out)) }).toEqual({ where, code: 1, refused: true });
  } else if ('actions' in step) {
    const seen = await p.actions(step.actions);
    const want = p.name === 'cli' && step.cli ? step.cli : step.expect;
    for (const [front, actions] of Object.entries(seen)) expect({ where, front, actions }).toEqual({ where, front, actions: want });
  } else if ('destroy' in step) {
    const r = await p.destroy(step.destroy);
    ok(r, 'destroy');
    has(r.out, step.out);
  } else if ('adopt' in step) {
    ok(await p.adopt(step.adopt), 'adopt');
  } else if ('server' in step) {
    await step.server(vault);
  } else {
    step.check(vault);
  }
}

describe.each([['cli'], ['terraform']] as const)('one decision per object, through %s', (which) => {
  let p: PathDriver;
  beforeAll(async () => {
    p = await openPath(which, ENV);
  }, 120_000);
  afterAll(() => p?.close());
  const saved = { ...process.env };
  afterAll(() => {
    process.env = saved;
  });

  it.each(SCENARIOS.map((s) => [`${s.defect === null ? 'roles' : `defect ${s.defect}`}: ${s.name}`, s] as const))(
    '%s',
    async (_name, s) => {
      const vault = await startVaultContract(s.contract);
      try {
        await p.reset(s.via === 'perfstandby' ? (await vault.perfStandby()).url : vault.url);
        for (const [i, step] of s.steps.entries()) await runStep(p, vault, step, `${which} step ${i + 1}${'why' in step ? ` (${step.why})` : ''}`);
        expect(vault.problems).toEqual([]);
      } finally {
        await vault.close();
      }
    },
    240_000,
  );
});
