// Issue 43's review scenario through `keyward plan` against a Vault stand-in: a PR that adds an account to one role,
// gives another `admin` and a longer ttl, sets `*` on an iam role, narrows a fourth, moves the iam endpoint, removes a
// snapshot config and lowers another's retain. Every object carries its labels in JSON and Markdown; `--fail-on
// broadens-access` exits 4 naming the three roles that broaden; the digest is the same for two plans of the same
// state made at different times, and `--expect-digest` refuses a changed plan naming what differs.
// (`*` on a vm role toward Vault is refused at plan, objects/role.ts; its locks-out label: test/unit/reconcile/meaning.test.ts.)

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAIL_ON_EXIT_CODE } from '../../../src/reconcile/fail-on';
import type { Plan } from '../../../src/reconcile/model';
import { manifestOf, type Stack } from '../../e2e/scenarios/stack';
import { runKeyward } from '../../support/keyward-in-process';
import { CONTRACT_TOKEN, startVaultContract, type VaultContract } from '../../support/vault-contract/server';
import { serviceAccountKey } from '../reconcile/helpers';

const SA = (n: string) => `${n}@p.iam.gserviceaccount.com`;
const gcs = (retain: number) => ({ fields: { storage_type: 'cloudtwo-store', interval: '12h', retain, path_prefix: 'raft/', cloudtwo_bucket: 'gcs-snaps' } });

const BEFORE: Stack = {
  path: 'cloud',
  config: { credentialsEnv: 'KW_CREDS', fields: { custom_endpoint: { iam: 'https://iam.corp.example' } as never } },
  roles: {
    web: { type: 'iam', bound_service_accounts: [SA('web')] },
    ops: { type: 'iam', bound_service_accounts: [SA('ops')], token_policies: ['read'], token_ttl: '1h' },
    any: { type: 'iam', bound_service_accounts: [SA('any')] },
    narrow: { type: 'iam', bound_service_accounts: [SA('a'), SA('b')] },
  },
  snapshots: { daily: gcs(5), weekly: gcs(10) },
};
const PR: Stack = {
  ...BEFORE,
  config: { credentialsEnv: 'KW_CREDS', fields: { custom_endpoint: { iam: 'https://iam.attacker.example' } as never } },
  roles: {
    web: { type: 'iam', bound_service_accounts: [SA('web'), SA('new')] },
    ops: { type: 'iam', bound_service_accounts: [SA('ops')], token_policies: ['read', 'admin'], token_ttl: '8h' },
    any: { type: 'iam', bound_service_accounts: ['*'] },
    narrow: { type: 'iam', bound_service_accounts: [SA('a')] },
  },
  snapshots: { weekly: gcs(2) },
};

let vault: VaultContract;
let dir: string;
const saved = { ...process.env };
const manifest = (s: Stack) => {
  const f = join(dir, 'keyward.manifest.json');
  writeFileSync(f, JSON.stringify(manifestOf(s)));
  return f;
};
beforeAll(async () => {
  vault = await startVaultContract();
  dir = mkdtempSync(join(tmpdir(), 'keyward-pr-review-'));
  Object.assign(process.env, { VAULT_ADDR: vault.url, VAULT_TOKEN: CONTRACT_TOKEN, KW_CREDS: serviceAccountKey('k1') });
  const applied = await runKeyward('apply', '--auto-approve', '--manifest', manifest(BEFORE));
  expect({ code: applied.code, out: applied.code ? applied.all : '' }).toEqual({ code: 0, out: '' });
}, 60_000);
afterAll(async () => {
  process.env = saved;
  await vault?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const labelsById = (p: Plan) => Object.fromEntries(p.objects.filter((o) => o.meanings?.length).map((o) => [o.id, [...new Set(o.meanings!.map((m) => m.label))].sort()]));

it('every object of the PR carries its labels, in JSON and in Markdown', async () => {
  const r = await runKeyward('plan', '--manifest', manifest(PR), '--format', 'json');
  expect(r.code).toBe(0);
  const plan = JSON.parse(r.out) as Plan;
  expect(labelsById(plan)).toEqual({
    'auth/cloud/config': ['credential-destination'],
    'auth/cloud/role/any': ['broadens-access'],
    'auth/cloud/role/narrow': ['narrows-access'],
    'auth/cloud/role/ops': ['broadens-access'],
    'auth/cloud/role/web': ['broadens-access'],
    'snapshot/daily': ['reduces-backups'],
    'snapshot/weekly': ['reduces-backups'],
  });
  const any = plan.objects.find((o) => o.id === 'auth/cloud/role/any')!;
  expect(any.meanings![0].explanation).toMatch(/any service account in any project may log in/);
  const md = (await runKeyward('plan', '--manifest', manifest(PR), '--format', 'markdown')).out;
  expect(md).toContain('🔓 broadens access: 3');
  expect(md).toMatch(/<code>- snapshot\/daily<\/code> delete \(removed from the desired state\) `reduces-backups`/);
  expect(md).toMatch(/`iam` calls|will be sent to https:\/\/iam\.attacker\.example/);
  expect(md).toMatch(/Reviewed-plan digest: <code>sha256:[0-9a-f]{64}<\/code>/);
  // Deletions first, then the most severe labels.
  expect(md.indexOf('snapshot/daily</code> delete')).toBeLessThan(md.indexOf('auth/cloud/role/any</code> update'));
});

it('--fail-on broadens-access exits with its own code, naming the three roles', async () => {
  const r = await runKeyward('plan', '--manifest', manifest(PR), '--fail-on', 'broadens-access');
  expect(r.code).toBe(FAIL_ON_EXIT_CODE);
  expect(r.err).toContain('--fail-on: 3 objects carry a label the rules refuse');
  for (const n of ['any', 'ops', 'web']) expect(r.err).toContain(`auth/cloud/role/${n}: broadens-access`);
  expect(r.err).not.toContain('narrow');
  expect((await runKeyward('plan', '--manifest', manifest(PR), '--fail-on', 'broadens-acess')).err).toMatch(/--fail-on: unknown label broadens-acess \(known: /);
});

it("cdktf.json's keyward.failOn applies the same rule to every PR plan", async () => {
  const cwd = process.cwd();
  writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'true', keyward: { failOn: ['reduces-backups'] } }));
  process.chdir(dir);
  try {
    const r = await runKeyward('plan', '--manifest', manifest(PR));
    expect(r.code).toBe(FAIL_ON_EXIT_CODE);
    expect(r.err).toContain('snapshot/daily: reduces-backups');
  } finally {
    process.chdir(cwd);
    rmSync(join(dir, 'cdktf.json'));
  }
});

it('--expect-digest: the same state planned twice carries one digest; a changed plan is refused naming what differs', async () => {
  const first = await runKeyward('plan', '--manifest', manifest(PR), '--format', 'markdown');
  const digest = /Reviewed-plan digest: <code>(sha256:[0-9a-f]{64})<\/code>/.exec(first.out)![1];
  await new Promise((r) => setTimeout(r, 1100));
  const again = await runKeyward('plan', '--manifest', manifest(PR), '--expect-digest', digest);
  expect({ code: again.code, err: again.err }).toEqual({ code: 0, err: '' });
  const comment = join(dir, 'reviewed.md');
  writeFileSync(comment, first.out);
  const changed: Stack = { ...PR, roles: { ...PR.roles, ops: { ...PR.roles!.ops, token_ttl: '24h' } } };
  const refused = await runKeyward('plan', '--manifest', manifest(changed), '--expect-digest', comment);
  expect(refused.code).toBe(1);
  expect(refused.err).toMatch(/--expect-digest: the plan is not the one reviewed/);
  expect(refused.err).toContain('~ auth/cloud/role/ops: a different change than the one reviewed');
  const apply = await runKeyward('apply', '--auto-approve', '--manifest', manifest(changed), '--expect-digest', comment);
  expect(apply.code).toBe(1);
  expect(vault.gcp.get('cloud')!.roles.get('ops')!.token_ttl).toBe(3600);
});
