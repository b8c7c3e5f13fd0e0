// Logins through the real GCP auth plugin (on real OpenBao) and through the embedded engine, with the
// same JWTs minted by keyward's cloud emulator, compared answer by answer: iam and vm (gce) roles,
// every bound check, the alias and metadata options, `*` on an iam role (any account) and on a gce
// role (the real plugin matches no VM: a literal), and renewals (also after the provider disabled the account or
// stopped the instance). Where the two differ, the difference must be one
// docs/engine.md lists ("Differences from OpenBao", suite `logins`), settled by issue 39's rule: the
// seed wins for the engine where it speaks; where it is silent the engine follows the real plugin.

import { SA } from '../support/cloud-fixture';
import { realServerTools } from '../support/openbao';
import { flat } from './parity/compare';
import { documentedDifferences, describeObserved, reconcile, type Observed } from './parity/documented';
import { startPair, type Pair } from './parity/pair';
import type { Answer, Target } from './parity/targets';
import { differences } from './parity/compare';

const aud = (role: string) => `http://vault/${role}`;

/** Roles in Vault's names (the engine gets them through the suite's rename table). */
const ROLES: Record<string, Record<string, unknown>> = {
  'iam-sa': { type: 'iam', bound_service_accounts: [SA.app.email] },
  'iam-star': { type: 'iam', bound_service_accounts: ['*'] },
  'iam-project': { type: 'iam', bound_service_accounts: ['*'], bound_projects: ['proj-b'] },
  'iam-policies': { type: 'iam', bound_service_accounts: [SA.app.email], token_policies: ['dev', 'ops'], token_ttl: 600, token_max_ttl: 1200 },
  'iam-inference': { type: 'iam', bound_service_accounts: [SA.vm.email], allow_gce_inference: true },
  'iam-no-inference': { type: 'iam', bound_service_accounts: [SA.vm.email], allow_gce_inference: false },
  'gce-zone': { type: 'gce', bound_projects: ['proj-a'], bound_zones: ['us-east1-b'] },
  'gce-region': { type: 'gce', bound_projects: ['proj-a'], bound_regions: ['us-west1'] },
  'gce-group': { type: 'gce', bound_projects: ['proj-a'], bound_zones: ['us-east1-b'], bound_instance_groups: ['web-group'] },
  'gce-regional-group': { type: 'gce', bound_projects: ['proj-a'], bound_regions: ['us-west1'], bound_instance_groups: ['web-regional'] },
  'gce-labels': { type: 'gce', bound_projects: ['proj-a'], bound_labels: ['env:prod', 'team:web'] },
  'gce-sa': { type: 'gce', bound_service_accounts: [SA.vm.email] },
  'gce-sa-other': { type: 'gce', bound_service_accounts: [SA.app.email] },
  'gce-star': { type: 'gce', bound_service_accounts: ['*'] },
  'gce-project-b': { type: 'gce', bound_projects: ['proj-b'] },
};

type Mint = (p: Pair, role: string) => string;
const sa =
  (account: string, o: { ttl?: number; audience?: string | null } = {}): Mint =>
  (p, role) =>
    p.emu.mintServiceAccountJwt({ account, audience: o.audience === undefined ? aud(role) : o.audience, ttl: o.ttl });
const vm =
  (instance: string): Mint =>
  (p, role) =>
    p.emu.mintInstanceToken({ instance, audience: aud(role) });

/** [label, mount, role, token]: every row is asked of both servers. */
const LOGINS: [string, string, string, Mint][] = [
  ['iam: bound account', 'gcp', 'iam-sa', sa(SA.app.email)],
  ['iam: other account', 'gcp', 'iam-sa', sa(SA.other.email)],
  ['iam: * allows any account', 'gcp', 'iam-star', sa(SA.other.email)],
  ['iam: bound project, other project', 'gcp', 'iam-project', sa(SA.app.email)],
  ['iam: bound project', 'gcp', 'iam-project', sa(SA.other.email)],
  ['iam: token policies and ttl', 'gcp', 'iam-policies', sa(SA.app.email)],
  ['iam: exp beyond max_jwt_exp', 'gcp', 'iam-sa', sa(SA.app.email, { ttl: 3600 })],
  ['iam: audience of another role', 'gcp', 'iam-sa', sa(SA.app.email, { audience: aud('iam-star') })],
  ['iam: no audience', 'gcp', 'iam-sa', sa(SA.app.email, { audience: null })],
  ['iam: disabled account under *', 'gcp', 'iam-star', sa(SA.disabled.email)],
  ['iam: instance token, inference allowed', 'gcp', 'iam-inference', vm('web-1')],
  ['iam: instance token, inference refused', 'gcp', 'iam-no-inference', vm('web-1')],
  ['gce: bound zone', 'gcp', 'gce-zone', vm('web-1')],
  ['gce: other zone', 'gcp', 'gce-zone', vm('web-2')],
  ['gce: bound region', 'gcp', 'gce-region', vm('web-2')],
  ['gce: other region', 'gcp', 'gce-region', vm('web-1')],
  ['gce: zonal instance group', 'gcp', 'gce-group', vm('web-1')],
  ['gce: not in the instance group', 'gcp', 'gce-group', vm('stopped-1')],
  ['gce: regional instance group', 'gcp', 'gce-regional-group', vm('web-2')],
  ['gce: bound labels', 'gcp', 'gce-labels', vm('web-1')],
  ['gce: labels not matching', 'gcp', 'gce-labels', vm('web-2')],
  ['gce: bound service account', 'gcp', 'gce-sa', vm('web-1')],
  ['gce: other service account', 'gcp', 'gce-sa-other', vm('web-1')],
  ['gce: * on a gce role', 'gcp', 'gce-star', vm('web-1')],
  ['gce: bound project', 'gcp', 'gce-project-b', vm('batch-1')],
  ['gce: other project', 'gcp', 'gce-project-b', vm('web-1')],
  ['gce: service-account JWT on a gce role', 'gcp', 'gce-zone', sa(SA.vm.email)],
  ['options: iam_alias=unique_id, iam_metadata', 'gcp-opts', 'iam-sa', sa(SA.app.email)],
  ['options: gce_alias=instance_id, gce_metadata', 'gcp-opts', 'gce-zone', vm('web-1')],
  ['options: iam_metadata=default on a gce role', 'gcp-opts', 'gce-labels', vm('web-1')],
];

/** The config of each mount, in Vault's names. */
const CONFIGS = (p: Pair): Record<string, Record<string, unknown>> => ({
  gcp: { custom_endpoint: p.endpoints },
  'gcp-opts': {
    custom_endpoint: p.endpoints,
    iam_alias: 'unique_id',
    gce_alias: 'instance_id',
    iam_metadata: ['project_id', 'role', 'service_account_email'],
    gce_metadata: ['instance_name', 'zone', 'project_id'],
  },
});

/** The login answer plus the name of the entity alias it made (role ids, random per server, shown as a marker). */
async function loginAnswer(t: Target, mount: string, role: string, jwt: string): Promise<Answer> {
  const r = await t.request('POST', `auth/${mount}/login`, { token: null, body: { role, jwt } });
  const auth = (r.body as { auth?: { entity_id?: string } }).auth;
  if (r.status !== 200 || !auth?.entity_id) return r;
  const entity = await t.request('GET', `identity/entity/id/${auth.entity_id}`);
  const aliases = ((entity.body as { data?: { aliases?: { name: string; mount_path: string }[] } }).data?.aliases ?? []).filter((a) => a.mount_path === `auth/${mount}/`);
  const roleRead = await t.request('GET', `auth/${mount}/role/${role}`);
  const roleId = (roleRead.body as { data?: { role_id?: string } }).data?.role_id;
  return { ...r, body: { ...(r.body as object), alias: aliases.map((a) => (a.name === roleId ? '<role_id of the role>' : a.name)) } };
}

describe('logins through the real GCP plugin and through the engine', () => {
  let p: Pair;
  const observed: Observed[] = [];
  let compared = 0;
  let identical = 0;

  beforeAll(async () => {
    p = await startPair();
    for (const t of [p.openbao, p.engine]) {
      for (const [mount, config] of Object.entries(CONFIGS(p))) {
        const e = await t.request('POST', `sys/auth/${mount}`, { body: { type: 'gcp' } });
        const c = await t.request('POST', `auth/${mount}/config`, { body: config });
        if (e.status >= 300 || c.status >= 300) throw new Error(`${t.name}: mount ${mount}: ${e.status} ${c.status} ${JSON.stringify(c.body)}`);
        for (const [name, body] of Object.entries(ROLES)) {
          const r = await t.request('POST', `auth/${mount}/role/${name}`, { body });
          if (r.status >= 300) throw new Error(`${t.name}: role ${name}: ${r.status} ${JSON.stringify(r.body)}`);
        }
      }
    }
  }, 120_000);
  afterAll(async () => {
    await p?.close();
  });

  it.each(LOGINS)('%s', async (label, mount, role, mint) => {
    const jwt = mint(p, role);
    const [a, b] = await Promise.all([loginAnswer(p.openbao, mount, role, jwt), loginAnswer(p.engine, mount, role, jwt)]);
    const diffs = differences(a, b);
    compared++;
    if (diffs.length === 0) identical++;
    for (const d of diffs) observed.push({ suite: 'logins', request: label, field: d.field, openbao: d.openbao, engine: d.engine });
    // Each answer is a clear success or a clear refusal on both sides, never a 5xx.
    expect({ openbao: a.status < 500, engine: b.status < 500 }).toEqual({ openbao: true, engine: true });
    expect(flat(a).size).toBeGreaterThan(1);
  });

  /** [label, mount, role, token, what changes at the provider between the login and the renewal]. */
  const RENEWALS: [string, string, string, Mint, ((p: Pair) => () => void) | null][] = [
    ['renew: iam', 'gcp', 'iam-sa', sa(SA.app.email), null],
    ['renew: gce', 'gcp', 'gce-zone', vm('web-1'), null],
    [
      'renew: iam, the account disabled since the login',
      'gcp',
      'iam-star',
      sa(SA.other.email),
      (p) => (p.emu.updateServiceAccount(SA.other.email, { disabled: true }), () => p.emu.updateServiceAccount(SA.other.email, { disabled: false })),
    ],
    [
      'renew: gce, the instance stopped since the login',
      'gcp',
      'gce-zone',
      vm('web-1'),
      (p) => (p.emu.setInstanceStatus('web-1', 'TERMINATED'), () => p.emu.setInstanceStatus('web-1', 'RUNNING')),
    ],
  ];

  it.each(RENEWALS)('%s', async (label, mount, role, mint, change) => {
    const jwt = mint(p, role);
    const tokens = await Promise.all(
      [p.openbao, p.engine].map(async (t) => {
        const r = await t.request('POST', `auth/${mount}/login`, { token: null, body: { role, jwt } });
        expect({ server: t.name, status: r.status }).toEqual({ server: t.name, status: 200 });
        return (r.body as { auth: { client_token: string } }).auth.client_token;
      }),
    );
    const undo = change?.(p);
    try {
      const [a, b] = await Promise.all([
        p.openbao.request('POST', 'auth/token/renew-self', { token: tokens[0], body: {} }),
        p.engine.request('POST', 'auth/token/renew-self', { token: tokens[1], body: {} }),
      ]);
      const diffs = differences(a, b);
      compared++;
      if (diffs.length === 0) identical++;
      for (const d of diffs) observed.push({ suite: 'logins', request: label, field: d.field, openbao: d.openbao, engine: d.engine });
      expect({ openbao: a.status < 500, engine: b.status < 500 }).toEqual({ openbao: true, engine: true });
    } finally {
      undo?.();
    }
  });

  it('the real plugin refuses every VM on a gce role with bound_service_accounts ["*"] (a literal there)', async () => {
    const r = await loginAnswer(p.openbao, 'gcp', 'gce-star', vm('web-1')(p, 'gce-star'));
    expect(r.status).toBe(400);
    process.stdout.write(`gce role with bound_service_accounts ["*"] on the real plugin: ${r.status} ${JSON.stringify(r.body)}\n`);
    expect((r.body as { errors?: string[] }).errors?.[0]).toMatch(/is not in bound service accounts \["\*"\]/);
  });

  it('the differences are exactly the ones docs/engine.md lists for logins', () => {
    const t = realServerTools();
    process.stdout.write(
      `logins parity: ${identical}/${compared} identical answers (OpenBao ${t.baoVersion}, ${t.plugin.module}@${t.plugin.version}${t.plugin.fallback ? ', FALLBACK plugin' : ''})\n` +
        observed.map(describeObserved).join('\n') +
        '\n',
    );
    const { unlisted, unobserved } = reconcile(documentedDifferences('logins'), observed);
    expect({ unlisted: unlisted.map(describeObserved), unobserved }).toEqual({ unlisted: [], unobserved: [] });
  });
});
