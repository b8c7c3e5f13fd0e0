// keyward's server scenarios (issue 39, Build 3) against real OpenBao with the real GCP auth plugin, through both
// paths a user has: the CLI (`keyward plan/apply/destroy --manifest`, test/e2e/scenarios/paths.ts cliPath) and the
// provider through real Terraform on HCL (terraformPath). One fresh `bao server -dev` per scenario; keyward mounts
// the plugin itself (type `gcp`, the name the harness registered it under, keyward's default cloudPlugin on OpenBao).
//
// Not here, because they do not apply to OpenBao:
// - snapshot-auto configs: OpenBao has no `sys/storage/raft/snapshot-auto` (that API is keyward snapshot-agent's,
//   tested in its own suites); keyward refuses such configs at plan time on OpenBao.
// - rotate-root and the rotation/WIF config fields: OpenBao's plugin host has no rotation manager and no plugin
//   identity tokens (422 / 500, docs/real-servers.md); rotate-root would also need Google's IAM API.
// - a performance standby (Vault Enterprise only).

import { serviceAccountKey } from '../integration/reconcile/helpers';
import { bao, baoRequest, realServerTools, startOpenBaoDev, type OpenBaoDev } from '../support/openbao';
import { openPath, type PathDriver, type Run } from '../e2e/scenarios/paths';
import type { Stack } from '../e2e/scenarios/stack';

const CREDS = serviceAccountKey('declared-1');
const PRIVATE_KEY_LINE = (JSON.parse(CREDS) as { private_key: string }).private_key.split('\n')[3];
/** Shared with the paths: terraformPath reads it at every run, cliPath copies it into process.env on reset. */
const ENV: Record<string, string> = { KW_CREDS: CREDS };
const flat = (s: string) => s.replace(/[│╷╵]/g, ' ').replace(/\s+/g, ' ');

type Json = Record<string, unknown>;
interface Server {
  dev: OpenBaoDev;
  get(path: string): Promise<Json | undefined>;
  post(path: string, body: Json): Promise<void>;
  /** Auth mounts by path (without the trailing slash) -> type. */
  mounts(): Promise<Record<string, string>>;
  roles(mount?: string): Promise<string[]>;
}

function server(dev: OpenBaoDev): Server {
  return {
    dev,
    async get(path) {
      const r = await baoRequest<{ data?: Json }>(dev.url, 'GET', path, { token: dev.token });
      if (r.status === 404) return undefined;
      if (r.status >= 300) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.data;
    },
    async post(path, body) {
      await bao(dev.url, 'POST', path, { token: dev.token, body });
    },
    async mounts() {
      const r = await bao<{ data: Record<string, { type: string }> }>(dev.url, 'GET', 'sys/auth', { token: dev.token });
      return Object.fromEntries(
        Object.entries(r.data)
          .filter(([p]) => p !== 'token/')
          .map(([p, m]) => [p.replace(/\/$/, ''), m.type]),
      );
    },
    async roles(mount = 'cloud') {
      const r = await baoRequest<{ data?: { keys?: string[] } }>(dev.url, 'LIST', `auth/${mount}/roles`, { token: dev.token });
      if (r.status === 404) return [];
      if (r.status >= 300) throw new Error(`LIST auth/${mount}/roles: ${r.status} ${JSON.stringify(r.body)}`);
      return [...(r.body.data?.keys ?? [])].sort();
    },
  };
}

type Step =
  | { apply: Stack; force?: boolean; out?: RegExp[] }
  /** An apply that must fail, its output matching `fails`. */
  | { applyFails: Stack; fails: RegExp }
  | { plan: Stack; changes?: boolean; out?: RegExp[]; notOut?: RegExp[]; fails?: RegExp }
  | { destroy: Stack; out?: RegExp[] }
  /** A destroy that must fail, its output matching `fails`. */
  | { destroyFails: Stack; fails: RegExp }
  | { adopt: Stack }
  /** Environment for the following steps of both paths (undefined: unset); restored after the scenario. */
  | { env: Record<string, string | undefined>; why: string }
  | { server: (s: Server) => Promise<unknown>; why: string };

interface Scenario {
  name: string;
  steps: Step[];
}

const ROLE_WEB = { type: 'iam', bound_service_accounts: ['web@p.iam.gserviceaccount.com'], token_ttl: '1h' };
const BASE: Stack = { path: 'cloud', config: { credentialsEnv: 'KW_CREDS', fields: { vm_alias: 'instance_id' } }, roles: { web: ROLE_WEB } };
const GROWN: Stack = {
  path: 'cloud',
  config: { credentialsEnv: 'KW_CREDS', fields: { vm_alias: 'instance_id', iam_alias: 'unique_id', iam_metadata: ['project_id', 'role'] } },
  roles: {
    web: { ...ROLE_WEB, token_ttl: '2h', token_policies: ['web', 'audit'], bound_projects: ['p'] },
    batch: { type: 'vm', bound_zones: ['europe-west1-b', 'europe-west1-c'], token_type: 'service', token_max_ttl: '4h' },
  },
};
const NO_WEB: Stack = { ...GROWN, roles: { batch: GROWN.roles!.batch } };
const MOVED: Stack = { ...BASE, path: 'moved', movedFrom: 'cloud' };
const EXCLUSIVE: Stack = { ...BASE, exclusiveRoles: true };
const AS_VM: Stack = { ...BASE, roles: { web: { type: 'vm', bound_zones: ['europe-west1-b'], token_ttl: '1h' } } };

/** Values the real plugin stores, in Vault's names (what a user reading the server sees). */
let roleIdBefore: unknown;
const keepRoleId = async (s: Server, mount = 'cloud') => void (roleIdBefore = (await s.get(`auth/${mount}/role/web`))?.role_id);
const sameRoleId =
  (mount = 'cloud') =>
  async (s: Server) =>
    expect((await s.get(`auth/${mount}/role/web`))?.role_id).toBe(roleIdBefore);

const SCENARIOS: Scenario[] = [
  {
    name: 'config and role CRUD through the real plugin; every second plan is empty',
    steps: [
      { plan: BASE, changes: true },
      { server: async (s) => expect(await s.mounts()).toEqual({}), why: 'a plan writes nothing' },
      { apply: BASE },
      {
        server: async (s) => {
          expect(await s.mounts()).toEqual({ cloud: 'gcp' });
          expect(await s.get('auth/cloud/config')).toMatchObject({
            gce_alias: 'instance_id',
            private_key_id: 'declared-1',
            client_email: 'keyward@keyward-ops.iam.gserviceaccount.com',
          });
          expect(await s.get('auth/cloud/role/web')).toMatchObject({ type: 'iam', bound_service_accounts: ['web@p.iam.gserviceaccount.com'], token_ttl: 3600 });
        },
        why: 'the mount (type gcp), config and role as the plugin stores them',
      },
      { plan: BASE, changes: false },
      { server: keepRoleId, why: 'the role_id before the update' },
      { apply: GROWN },
      {
        server: async (s) => {
          expect(await s.get('auth/cloud/config')).toMatchObject({ iam_alias: 'unique_id', gce_alias: 'instance_id', private_key_id: 'declared-1' });
          expect([...((await s.get('auth/cloud/config'))!.iam_metadata as string[])].sort()).toEqual(['project_id', 'role']);
          expect(await s.get('auth/cloud/role/web')).toMatchObject({ token_ttl: 7200, bound_projects: ['p'] });
          expect(await s.get('auth/cloud/role/batch')).toMatchObject({ type: 'gce', token_type: 'service', token_max_ttl: 14400 });
          expect(await s.roles()).toEqual(['batch', 'web']);
        },
        why: 'updated in place, the vm role created as gce',
      },
      { server: sameRoleId(), why: 'an update keeps the role_id' },
      { plan: GROWN, changes: false },
      { apply: NO_WEB },
      { server: async (s) => expect(await s.roles()).toEqual(['batch']), why: 'the undeclared managed role deleted' },
      { plan: NO_WEB, changes: false },
      { destroy: NO_WEB },
      { server: async (s) => expect(await s.mounts()).toEqual({}), why: 'destroy disables the mount keyward created, nothing foreign on it' },
    ],
  },
  {
    name: 'drift: a role and the config changed by hand show in the plan and apply puts them back',
    steps: [
      { apply: BASE },
      { server: keepRoleId, why: 'the role_id before' },
      {
        server: async (s) => {
          await s.post('auth/cloud/role/web', { token_ttl: 7200, bound_service_accounts: ['intruder@p.iam.gserviceaccount.com'], token_policies: ['admin'] });
          await s.post('auth/cloud/config', { gce_alias: 'role_id', iam_alias: 'unique_id' });
        },
        why: 'an operator edits role and config through the API',
      },
      { plan: BASE, changes: true, out: [/token_ttl/, /bound_service_accounts/, /token_policies/, /vm_alias/, /iam_alias/] },
      { apply: BASE },
      {
        server: async (s) => {
          const role = await s.get('auth/cloud/role/web');
          expect({ ttl: role?.token_ttl, sa: role?.bound_service_accounts, pol: role?.token_policies }).toEqual({ ttl: 3600, sa: ['web@p.iam.gserviceaccount.com'], pol: [] });
          expect(await s.get('auth/cloud/config')).toMatchObject({ gce_alias: 'instance_id', iam_alias: 'role_id', private_key_id: 'declared-1' });
        },
        why: 'back to the declaration',
      },
      { server: sameRoleId(), why: 'corrected in place, not recreated' },
      { plan: BASE, changes: false },
    ],
  },
  {
    name: 'import: what the server holds is adopted without recreating it (CLI: no record; Terraform: terraform import)',
    steps: [
      { apply: GROWN },
      { server: keepRoleId, why: 'the role_id before' },
      { adopt: GROWN },
      // The first plan after taking over: nothing to create, whatever it says about the declared key.
      { plan: GROWN, notOut: [/will be created|Plan: [1-9]\d* to (add|create)/] },
      { apply: GROWN },
      { server: sameRoleId(), why: 'the adopted role is the same role' },
      { server: async (s) => expect((await s.get('auth/cloud/config'))?.private_key_id).toBe('declared-1'), why: 'the key is the declared one' },
      { plan: GROWN, changes: false },
    ],
  },
  {
    name: 'destroy on a shared mount: a role made by hand on the mount stays, with the mount and its config',
    steps: [
      { apply: BASE },
      { server: (s) => s.post('auth/cloud/role/foreign', { type: 'iam', bound_service_accounts: ['f@p.iam.gserviceaccount.com'] }), why: 'a role made by hand' },
      { destroy: BASE },
      {
        server: async (s) => {
          expect(await s.mounts()).toEqual({ cloud: 'gcp' });
          expect(await s.roles()).toEqual(['foreign']);
          expect(await s.get('auth/cloud/config')).toMatchObject({ gce_alias: 'instance_id', private_key_id: 'declared-1' });
        },
        why: 'only the managed role deleted',
      },
    ],
  },
  {
    name: 'a mount move through the real sys/remount and its status (movedFrom on the CLI, a path change in Terraform)',
    steps: [
      { apply: BASE },
      { server: keepRoleId, why: 'the role_id before' },
      { plan: MOVED, changes: true, out: [/revokes every token and lease issued through the mount/] },
      { apply: MOVED },
      {
        server: async (s) => {
          expect(await s.mounts()).toEqual({ moved: 'gcp' });
          expect(await s.roles('moved')).toEqual(['web']);
          expect(await s.get('auth/moved/config')).toMatchObject({ gce_alias: 'instance_id', private_key_id: 'declared-1' });
        },
        why: 'moved with its config and roles',
      },
      { server: sameRoleId('moved'), why: 'the role moved, not recreated' },
      { plan: MOVED, changes: false },
      { plan: { ...MOVED, movedFrom: undefined }, changes: false },
    ],
  },
  {
    name: 'exclusive roles: a role on the mount that the stack does not declare is deleted',
    steps: [
      { apply: EXCLUSIVE },
      { server: (s) => s.post('auth/cloud/role/stray', { type: 'gce', bound_zones: ['europe-west1-b'] }), why: 'a role made by hand' },
      { plan: EXCLUSIVE, changes: true, out: [/stray/] },
      { server: async (s) => expect(await s.roles()).toEqual(['stray', 'web']), why: 'a plan deletes nothing' },
      { apply: EXCLUSIVE },
      { server: async (s) => expect(await s.roles()).toEqual(['web']), why: 'the stray role deleted, the declared one kept' },
      { plan: EXCLUSIVE, changes: false },
    ],
  },
  {
    name: "a role's type change deletes and recreates it with a new role_id; the plan says it is replaced",
    steps: [
      { apply: BASE },
      { server: keepRoleId, why: 'the role_id before' },
      { plan: AS_VM, changes: true, out: [/replace/] },
      { apply: AS_VM },
      {
        server: async (s) => {
          const role = await s.get('auth/cloud/role/web');
          expect({ type: role?.type, zones: role?.bound_zones, sameId: role?.role_id === roleIdBefore }).toEqual({ type: 'gce', zones: ['europe-west1-b'], sameId: false });
        },
        why: 'a gce role with a new role_id',
      },
      { plan: AS_VM, changes: false },
    ],
  },
  {
    // The plugin's path_role.go leaves max_jwt_exp out of a read when it is 0: keyward reads the absence as 0 (every
    // JWT refused), not as the 900 default, so the plan shows it and apply writes the default back.
    name: 'a max_jwt_exp of 0 set by hand reads as 0 and the default is written back',
    steps: [
      { apply: BASE },
      { server: (s) => s.post('auth/cloud/role/web', { max_jwt_exp: 0 }), why: 'max_jwt_exp set to 0 by hand' },
      { server: async (s) => expect('max_jwt_exp' in ((await s.get('auth/cloud/role/web')) ?? {})).toBe(false), why: 'the real read leaves it out' },
      { plan: BASE, changes: true, out: [/max_jwt_exp/] },
      { apply: BASE },
      { server: async (s) => expect((await s.get('auth/cloud/role/web'))?.max_jwt_exp).toBe(900), why: 'back to 900' },
      { plan: BASE, changes: false },
    ],
  },
  {
    name: 'plan-only mode (KEYWARD_PLAN_ONLY=1): plans without the secret, refuses every apply, writes nothing',
    steps: [
      { apply: BASE },
      { env: { KEYWARD_PLAN_ONLY: '1', KW_CREDS: undefined }, why: 'a pull-request run without production secrets' },
      { plan: BASE, changes: false, out: [/KW_CREDS/] },
      { plan: GROWN, changes: true },
      { applyFails: GROWN, fails: /KEYWARD_PLAN_ONLY/ },
      { destroyFails: BASE, fails: /KEYWARD_PLAN_ONLY/ },
      { server: async (s) => expect([await s.mounts(), await s.roles()]).toEqual([{ cloud: 'gcp' }, ['web']]), why: 'nothing written, nothing destroyed' },
      { server: async (s) => expect((await s.get('auth/cloud/role/web'))?.token_ttl).toBe(3600), why: 'the role untouched' },
    ],
  },
  {
    name: 'a wrong token: a clear error naming the refusal, nothing written',
    steps: [
      { env: { VAULT_TOKEN: 'not-a-token-this-server-issued' }, why: 'the token is wrong' },
      { plan: BASE, fails: /token from VAULT_TOKEN (was|is) refused/i },
      { applyFails: BASE, fails: /token from VAULT_TOKEN (was|is) refused/i },
      { server: async (s) => expect(await s.mounts()).toEqual({}), why: 'nothing written' },
    ],
  },
];

describe.each([['cli'], ['terraform']] as const)('keyward scenarios against real OpenBao, through %s', (which) => {
  let p: PathDriver;
  const saved = { ...process.env };
  const savedEnv = { ...ENV };
  beforeAll(async () => {
    const t = realServerTools();
    process.stdout.write(
      `real OpenBao ${t.baoVersion}; GCP auth plugin ${t.plugin.module}@${t.plugin.version}${t.plugin.fallback ? ' (FALLBACK: HashiCorp v0.19.1 in place of OpenBao fork)' : ''}\n`,
    );
    p = await openPath(which, ENV);
  }, 180_000);
  afterAll(() => {
    p?.close();
    process.env = saved;
  });

  const setEnv = (vars: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(vars)) {
      if (v === undefined) {
        delete process.env[k];
        delete ENV[k];
      } else {
        process.env[k] = v;
        ENV[k] = v;
      }
    }
  };

  async function runStep(s: Server, step: Step, where: string): Promise<Run | undefined> {
    const ok = (r: Run, what: string) => expect({ where, what, code: r.code, out: r.code === 0 ? '' : r.out.slice(-3000) }).toEqual({ where, what, code: 0, out: '' });
    const has = (out: string, res: RegExp[] | undefined) => {
      for (const re of res ?? []) expect({ where, re: String(re), out: re.test(flat(out)) ? '' : out.slice(-3000) }).toEqual({ where, re: String(re), out: '' });
    };
    const refused = (r: Run, re: RegExp) =>
      expect({ where, failed: r.code !== 0, matches: re.test(flat(r.out)), out: r.code !== 0 && re.test(flat(r.out)) ? '' : r.out.slice(-3000) }).toEqual({
        where,
        failed: true,
        matches: true,
        out: '',
      });
    if ('apply' in step) {
      const r = await p.apply(step.apply, { force: step.force });
      ok(r, 'apply');
      has(r.out, step.out);
      return r;
    }
    if ('applyFails' in step) {
      const r = await p.apply(step.applyFails);
      refused(r, step.fails);
      return r;
    }
    if ('plan' in step) {
      const r = await p.plan(step.plan);
      if (step.fails) {
        refused(r, step.fails);
        return r;
      }
      ok(r, 'plan');
      if (step.changes !== undefined)
        expect({ where, changes: r.changes, out: r.changes === step.changes ? '' : r.out.slice(-3000) }).toEqual({ where, changes: step.changes, out: '' });
      has(r.out, step.out);
      for (const re of step.notOut ?? []) expect({ where, re: String(re), out: re.test(flat(r.out)) ? r.out.slice(-3000) : '' }).toEqual({ where, re: String(re), out: '' });
      return r;
    }
    if ('destroyFails' in step) {
      const r = await p.destroy(step.destroyFails);
      refused(r, step.fails);
      return r;
    }
    if ('destroy' in step) {
      const r = await p.destroy(step.destroy);
      ok(r, 'destroy');
      has(r.out, step.out);
      return r;
    }
    if ('adopt' in step) {
      const r = await p.adopt(step.adopt);
      ok(r, 'adopt');
      return r;
    }
    if ('env' in step) {
      setEnv(step.env);
      return undefined;
    }
    try {
      await step.server(s);
    } catch (e) {
      throw new Error(`${where}: ${(e as Error).message}`);
    }
    return undefined;
  }

  it.each(SCENARIOS.map((s) => [s.name, s] as const))(
    '%s',
    async (_name, scenario) => {
      const dev = await startOpenBaoDev();
      const s = server(dev);
      try {
        await p.reset(dev.url);
        // The dev server's root token (cliPath sets the contract server's; both paths read VAULT_TOKEN from here on).
        setEnv({ VAULT_TOKEN: dev.token });
        const outs: string[] = [];
        for (const [i, step] of scenario.steps.entries()) {
          const r = await runStep(s, step, `${which} step ${i + 1}${'why' in step ? ` (${step.why})` : ''}`);
          if (r) outs.push(r.out);
        }
        // The declared key never shows in any output, failing or not.
        expect(outs.filter((o) => o.includes(PRIVATE_KEY_LINE) || o.includes(CREDS))).toEqual([]);
      } finally {
        for (const k of Object.keys(ENV)) if (!(k in savedEnv)) delete ENV[k];
        Object.assign(ENV, savedEnv);
        for (const k of ['KEYWARD_PLAN_ONLY', 'VAULT_TOKEN']) delete process.env[k];
        Object.assign(process.env, savedEnv);
        await dev.close();
      }
    },
    240_000,
  );
});
