// Issue 43's review scenario through `keyward plan` against a Vault stand-in (the contract server, Vault dialect): a PR
// that adds an account to one role, gives another `admin` and a longer ttl, sets `*` on an iam role and on a vm role,
// narrows a fourth, moves the iam endpoint, removes a snapshot config and lowers another's retain. Every object carries
// its labels in JSON and Markdown; `*` on the vm role is a lock-out on Vault (a literal there: no VM matches), so the
// plan shows it refused and exits 4 under the built-in rule, and `keyward apply` writes nothing; `--fail-on
// broadens-access` exits 4 naming the three roles that broaden and, apart, the lock-out; the digest is the same for
// two plans of the same state made at different times, and `--expect-digest` refuses a changed plan naming what differs.

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
    batch: { type: 'vm', bound_zones: ['europe-west1-b'], bound_service_accounts: [SA('batch')] },
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
    batch: { type: 'vm', bound_zones: ['europe-west1-b'], bound_service_accounts: ['*'] },
  },
  snapshots: { weekly: gcs(2) },
};
/** The PR without the vm role's `*`: a plan apply carries out. */
const APPLICABLE: Stack = { ...PR, roles: { ...PR.roles, batch: BEFORE.roles!.batch } };
const LOCKOUT =
  'on Vault and OpenBao `*` on a vm role is a literal: no VM matches; list the service accounts; keyward apply and the Terraform provider refuse to write it (nothing is written)';

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

it("every object of the PR carries its labels, in JSON and in Markdown; the vm role's `*` is a lock-out apply refuses", async () => {
  const r = await runKeyward('plan', '--manifest', manifest(PR), '--format', 'json');
  // The plan is produced in full for review; the built-in rule fails it (never 0, nor 2 under --detailed-exitcode).
  expect(r.code).toBe(FAIL_ON_EXIT_CODE);
  const plan = JSON.parse(r.out) as Plan;
  expect(labelsById(plan)).toEqual({
    'auth/cloud/config': ['credential-destination'],
    'auth/cloud/role/any': ['broadens-access'],
    'auth/cloud/role/batch': ['locks-out', 'narrows-access'],
    'auth/cloud/role/narrow': ['narrows-access'],
    'auth/cloud/role/ops': ['broadens-access'],
    'auth/cloud/role/web': ['broadens-access'],
    'snapshot/daily': ['reduces-backups'],
    'snapshot/weekly': ['reduces-backups'],
  });
  const any = plan.objects.find((o) => o.id === 'auth/cloud/role/any')!;
  expect(any.meanings![0].explanation).toMatch(/any service account in any project may log in/);
  const batch = plan.objects.find((o) => o.id === 'auth/cloud/role/batch')!;
  expect({ action: batch.action, refused: batch.refused }).toEqual({ action: 'update', refused: { label: 'locks-out', field: 'bound_service_accounts', message: LOCKOUT } });
  expect(batch.meanings!.find((m) => m.label === 'locks-out')!.explanation).toMatch(
    /^on Vault and OpenBao `\*` on a vm role is a literal service account name: no VM matches it, so every VM that logs in through role `batch` on `auth\/cloud` is refused; keyward apply and the Terraform provider refuse to write it \(nothing is written\)$/,
  );
  expect(plan.objects.filter((o) => o.refused).map((o) => o.id)).toEqual(['auth/cloud/role/batch']);
  const md = await runKeyward('plan', '--manifest', manifest(PR), '--format', 'markdown');
  expect(md.code).toBe(FAIL_ON_EXIT_CODE);
  expect(md.out).toContain('🔓 broadens access: 3');
  expect(md.out).toContain('⛔ locks out: 1');
  expect(md.out).toContain(`> - <code>auth/cloud/role/batch</code> \`locks-out\` <code>bound_service_accounts</code>: ${LOCKOUT}`);
  expect(md.out).toMatch(
    /- <code>~ auth\/cloud\/role\/batch<\/code> update `narrows-access` `locks-out`\n {2}- <code>bound_service_accounts<\/code>: on Vault and OpenBao[^\n]*refuse to write it/,
  );
  expect(md.out).toMatch(/<code>- snapshot\/daily<\/code> delete \(removed from the desired state\) `reduces-backups`/);
  expect(md.out).toMatch(/`iam` calls|will be sent to https:\/\/iam\.attacker\.example/);
  expect(md.out).toMatch(/Reviewed-plan digest: <code>sha256:[0-9a-f]{64}<\/code>/);
  // Deletions first, then the most severe labels: the lock-out before the broadening.
  expect(md.out.indexOf('snapshot/daily</code> delete')).toBeLessThan(md.out.indexOf('auth/cloud/role/batch</code> update'));
  expect(md.out.indexOf('auth/cloud/role/batch</code> update')).toBeLessThan(md.out.indexOf('auth/cloud/role/any</code> update'));
  const text = await runKeyward('plan', '--manifest', manifest(PR), '--detailed-exitcode');
  expect(text.code).toBe(FAIL_ON_EXIT_CODE);
  expect(text.out).toContain(`⛔ auth/cloud/role/batch: locks-out: bound_service_accounts: ${LOCKOUT}`);
  expect(text.out).toContain('[locks-out] bound_service_accounts: on Vault and OpenBao');
  expect(text.err).toBe(
    `built-in rule: 1 change keyward apply refuses (the server would accept it but cannot honour it):\n  auth/cloud/role/batch: locks-out: bound_service_accounts: ${LOCKOUT}\n`,
  );
});

it('--fail-on broadens-access exits with its own code, naming the three roles, and the lock-out apart', async () => {
  const r = await runKeyward('plan', '--manifest', manifest(PR), '--fail-on', 'broadens-access');
  expect(r.code).toBe(FAIL_ON_EXIT_CODE);
  expect(r.err).toBe(
    [
      '--fail-on: 3 objects carry a label the rules refuse:',
      '  auth/cloud/role/any: broadens-access',
      '  auth/cloud/role/ops: broadens-access',
      '  auth/cloud/role/web: broadens-access',
      'built-in rule: 1 change keyward apply refuses (the server would accept it but cannot honour it):',
      `  auth/cloud/role/batch: locks-out: bound_service_accounts: ${LOCKOUT}`,
      '',
    ].join('\n'),
  );
  // Without the lock-out, the same rule names the same three roles and nothing else.
  const applicable = await runKeyward('plan', '--manifest', manifest(APPLICABLE), '--fail-on', 'broadens-access');
  expect({ code: applicable.code, err: applicable.err }).toEqual({
    code: FAIL_ON_EXIT_CODE,
    err: '--fail-on: 3 objects carry a label the rules refuse:\n  auth/cloud/role/any: broadens-access\n  auth/cloud/role/ops: broadens-access\n  auth/cloud/role/web: broadens-access\n',
  });
  expect((await runKeyward('plan', '--manifest', manifest(PR), '--fail-on', 'broadens-acess')).err).toMatch(/--fail-on: unknown label broadens-acess \(known: /);
});

it('keyward apply refuses the plan holding the lock-out (exit 1), writes nothing; so does apply of a saved plan', async () => {
  const before = vault.requests.length;
  const apply = await runKeyward('apply', '--auto-approve', '--manifest', manifest(PR));
  expect(apply.code).toBe(1);
  expect(apply.err).toContain(`would accept but cannot honour this value, so nothing is applied:\n  auth/cloud/role/batch: bound_service_accounts: ${LOCKOUT}`);
  const saved = join(dir, 'pr.plan.json');
  expect((await runKeyward('plan', '--manifest', manifest(PR), '--out', saved)).code).toBe(FAIL_ON_EXIT_CODE);
  const applySaved = await runKeyward('apply', '--plan', saved);
  expect(applySaved.code).toBe(1);
  expect(applySaved.err).toContain('auth/cloud/role/batch: bound_service_accounts: on Vault and OpenBao');
  expect(vault.requests.slice(before).filter((q) => q.method !== 'GET' && q.method !== 'LIST')).toEqual([]);
  const roles = vault.gcp.get('cloud')!.roles;
  expect(roles.get('batch')!.bound_service_accounts).toEqual([SA('batch')]);
  expect(roles.get('any')!.bound_service_accounts).toEqual([SA('any')]);
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
  const first = await runKeyward('plan', '--manifest', manifest(APPLICABLE), '--format', 'markdown');
  const digest = /Reviewed-plan digest: <code>(sha256:[0-9a-f]{64})<\/code>/.exec(first.out)![1];
  await new Promise((r) => setTimeout(r, 1100));
  const again = await runKeyward('plan', '--manifest', manifest(APPLICABLE), '--expect-digest', digest);
  expect({ code: again.code, err: again.err }).toEqual({ code: 0, err: '' });
  const comment = join(dir, 'reviewed.md');
  writeFileSync(comment, first.out);
  const changed: Stack = { ...APPLICABLE, roles: { ...APPLICABLE.roles, ops: { ...APPLICABLE.roles!.ops, token_ttl: '24h' } } };
  const refused = await runKeyward('plan', '--manifest', manifest(changed), '--expect-digest', comment);
  expect(refused.code).toBe(1);
  expect(refused.err).toMatch(/--expect-digest: the plan is not the one reviewed/);
  expect(refused.err).toContain('~ auth/cloud/role/ops: a different change than the one reviewed');
  const apply = await runKeyward('apply', '--auto-approve', '--manifest', manifest(changed), '--expect-digest', comment);
  expect(apply.code).toBe(1);
  expect(vault.gcp.get('cloud')!.roles.get('ops')!.token_ttl).toBe(3600);
});
