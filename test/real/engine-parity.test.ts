// The engine parity suite: one sequence of requests, in Vault's names, asked of real OpenBao (with the
// GCP auth plugin) and of the embedded engine (translated with the suite's own copy of the seed's rename
// table, test/real/parity/rename.ts), compared status by status and field by field for every endpoint
// both serve: sys/health, sys/auth (enable, read, tune, remount and its status, disable), tokens,
// policies, namespaces, the GCP plugin's config, role and login paths, identity, and their errors.
// The requests cover those of every scenario row (test/e2e/scenarios/table.ts) per endpoint family:
// config writes with aliases and credentials, rotation fields, role writes and type changes,
// max_jwt_exp 0, mount tune and moves, an unknown migration id, a wrong token.
// Each difference must be one docs/engine.md lists ("Differences from OpenBao", suite `parity`), and
// each listed one must still be observed. The suite prints the parity figure.

import { SA } from '../support/cloud-fixture';
import { realServerTools } from '../support/openbao';
import { differences, IGNORED_VALUES } from './parity/compare';
import { readFileSync } from 'node:fs';
import { documentedDifferences, describeObserved, ENGINE_DOC, reconcile, type Observed } from './parity/documented';
import { startPair, type Pair } from './parity/pair';
import type { Answer, Target } from './parity/targets';

/** What one server's earlier answers gave (tokens, accessors, migration ids): per server. */
type Ctx = Record<string, string>;
type Dyn<T> = T | ((c: Ctx, p: Pair) => T);

interface Step {
  family: string;
  label: string;
  method: string;
  path: Dyn<string>;
  body?: Dyn<Record<string, unknown>>;
  /** Default: the root token; null: none. */
  token?: Dyn<string | null>;
  namespace?: string;
  /** Keeps values of the answer for later steps. */
  save?: (a: Answer, c: Ctx) => void;
  /** Repeats the request until this holds (an asynchronous server operation). */
  until?: (a: Answer) => boolean;
}

const get = <T>(v: Dyn<T>, c: Ctx, p: Pair): T => (typeof v === 'function' ? (v as (c: Ctx, p: Pair) => T)(c, p) : v);
const d = (a: Answer) => (a.body ?? {}) as { data?: Record<string, unknown>; auth?: Record<string, unknown> };
const keep = (name: string, from: (a: Answer) => unknown) => (a: Answer, c: Ctx) => void (c[name] = String(from(a) ?? ''));
const aud = (role: string) => `http://vault/${role}`;
const POLICY = 'path "secret/data/*" {\n  capabilities = ["read", "list"]\n}\n';

const STEPS: Step[] = [
  // sys/health and seal status (unauthenticated).
  { family: 'health', label: 'health', method: 'GET', path: 'sys/health', token: null },
  { family: 'health', label: 'health standbyok', method: 'GET', path: 'sys/health?standbyok=true&perfstandbyok=true', token: null },
  { family: 'health', label: 'seal-status', method: 'GET', path: 'sys/seal-status', token: null },

  // Policies.
  { family: 'policy', label: 'write sys/policy/dev', method: 'PUT', path: 'sys/policy/dev', body: { policy: POLICY } },
  { family: 'policy', label: 'read sys/policy/dev', method: 'GET', path: 'sys/policy/dev' },
  { family: 'policy', label: 'write sys/policies/acl/ops', method: 'PUT', path: 'sys/policies/acl/ops', body: { policy: POLICY } },
  { family: 'policy', label: 'read sys/policies/acl/ops', method: 'GET', path: 'sys/policies/acl/ops' },
  { family: 'policy', label: 'list sys/policies/acl', method: 'LIST', path: 'sys/policies/acl' },
  { family: 'policy', label: 'list sys/policy', method: 'GET', path: 'sys/policy' },
  { family: 'policy', label: 'write a policy that does not parse', method: 'PUT', path: 'sys/policy/broken', body: { policy: 'path "x" {' } },
  { family: 'policy', label: 'write a policy without rules', method: 'PUT', path: 'sys/policy/empty', body: {} },
  { family: 'policy', label: 'read a missing policy', method: 'GET', path: 'sys/policy/missing' },
  { family: 'policy', label: 'read a missing acl policy', method: 'GET', path: 'sys/policies/acl/missing' },

  // Tokens.
  {
    family: 'token',
    label: 'create',
    method: 'POST',
    path: 'auth/token/create',
    body: { policies: ['dev'], ttl: '1h', explicit_max_ttl: '2h', meta: { team: 'web' }, display_name: 'parity' },
    save: (a, c) => {
      c.child = String(d(a).auth?.client_token ?? '');
      c.childAccessor = String(d(a).auth?.accessor ?? '');
    },
  },
  { family: 'token', label: 'lookup-self (child)', method: 'GET', path: 'auth/token/lookup-self', token: (c) => c.child },
  { family: 'token', label: 'lookup', method: 'POST', path: 'auth/token/lookup', body: (c) => ({ token: c.child }) },
  { family: 'token', label: 'lookup-accessor', method: 'POST', path: 'auth/token/lookup-accessor', body: (c) => ({ accessor: c.childAccessor }) },
  { family: 'token', label: 'renew', method: 'POST', path: 'auth/token/renew', body: (c) => ({ token: c.child, increment: '30m' }) },
  { family: 'token', label: 'renew-self (child)', method: 'POST', path: 'auth/token/renew-self', token: (c) => c.child, body: { increment: 600 } },
  {
    family: 'token',
    label: 'capabilities-self (child)',
    method: 'POST',
    path: 'sys/capabilities-self',
    token: (c) => c.child,
    body: { paths: ['secret/data/x', 'sys/policy/dev'] },
  },
  { family: 'token', label: 'create by a token without sudo', method: 'POST', path: 'auth/token/create', token: (c) => c.child, body: {} },
  {
    family: 'token',
    label: 'create-orphan',
    method: 'POST',
    path: 'auth/token/create-orphan',
    body: { policies: ['ops'], ttl: 3600, num_uses: 3 },
    save: keep('orphan', (a) => d(a).auth?.client_token),
  },
  { family: 'token', label: 'lookup an orphan', method: 'POST', path: 'auth/token/lookup', body: (c) => ({ token: c.orphan }) },
  {
    family: 'token',
    label: 'create batch',
    method: 'POST',
    path: 'auth/token/create',
    body: { type: 'batch', policies: ['dev'], ttl: '10m' },
    save: keep('batch', (a) => d(a).auth?.client_token),
  },
  { family: 'token', label: 'lookup a batch token', method: 'POST', path: 'auth/token/lookup', body: (c) => ({ token: c.batch }) },
  { family: 'token', label: 'create with a bad ttl', method: 'POST', path: 'auth/token/create', body: { ttl: 'soon' } },
  { family: 'token', label: 'create with an unknown type', method: 'POST', path: 'auth/token/create', body: { type: 'weird' } },
  { family: 'token', label: 'lookup an unknown token', method: 'POST', path: 'auth/token/lookup', body: { token: 'hvs.not-a-token' } },
  // The default policy grants lookup-self only: a token allowed auth/token/lookup asks about itself.
  {
    family: 'token',
    label: 'write a policy for lookup',
    method: 'PUT',
    path: 'sys/policy/looker',
    body: { policy: 'path "auth/token/lookup" {\n  capabilities = ["update"]\n}\n' },
  },
  {
    family: 'token',
    label: 'create a token that may look up',
    method: 'POST',
    path: 'auth/token/create',
    body: { policies: ['looker'], ttl: '1h' },
    save: keep('looker', (a) => d(a).auth?.client_token),
  },
  { family: 'token', label: 'lookup without a token field', method: 'POST', path: 'auth/token/lookup', token: (c) => c.looker, body: {} },
  { family: 'token', label: 'a wrong token', method: 'GET', path: 'auth/token/lookup-self', token: 'hvs.wrong-token' },
  { family: 'token', label: 'no token', method: 'GET', path: 'sys/auth', token: null },
  { family: 'token', label: 'revoke-accessor', method: 'POST', path: 'auth/token/revoke-accessor', body: (c) => ({ accessor: c.childAccessor }) },
  { family: 'token', label: 'lookup a revoked token', method: 'POST', path: 'auth/token/lookup', body: (c) => ({ token: c.child }) },
  { family: 'token', label: 'revoke', method: 'POST', path: 'auth/token/revoke', body: (c) => ({ token: c.orphan }) },
  { family: 'token', label: 'revoked token used', method: 'GET', path: 'auth/token/lookup-self', token: (c) => c.orphan },

  // Auth mounts.
  { family: 'sys/auth', label: 'list', method: 'GET', path: 'sys/auth' },
  { family: 'sys/auth', label: 'enable gcp', method: 'POST', path: 'sys/auth/gcp', body: { type: 'gcp', description: 'parity' } },
  { family: 'sys/auth', label: 'enable gcp again', method: 'POST', path: 'sys/auth/gcp', body: { type: 'gcp' } },
  { family: 'sys/auth', label: 'enable an unknown type', method: 'POST', path: 'sys/auth/other', body: { type: 'no-such-method' } },
  { family: 'sys/auth', label: 'enable without a type', method: 'POST', path: 'sys/auth/other', body: {} },
  {
    family: 'sys/auth',
    label: 'enable with config',
    method: 'POST',
    path: 'sys/auth/gcp-keyed',
    body: { type: 'gcp', config: { default_lease_ttl: '1h', max_lease_ttl: '4h', token_type: 'default-service' } },
  },
  { family: 'sys/auth', label: 'read one mount', method: 'GET', path: 'sys/auth/gcp' },
  { family: 'sys/auth', label: 'read tune', method: 'GET', path: 'sys/auth/gcp/tune' },
  {
    family: 'sys/auth',
    label: 'tune',
    method: 'POST',
    path: 'sys/auth/gcp/tune',
    body: { description: 'tuned', default_lease_ttl: '1h', max_lease_ttl: '2h', token_type: 'default-service', listing_visibility: 'hidden' },
  },
  { family: 'sys/auth', label: 'read tune after tune', method: 'GET', path: 'sys/auth/gcp/tune' },
  { family: 'sys/auth', label: 'tune with a bad ttl', method: 'POST', path: 'sys/auth/gcp/tune', body: { default_lease_ttl: 'forever' } },
  { family: 'sys/auth', label: 'tune default above max', method: 'POST', path: 'sys/auth/gcp/tune', body: { default_lease_ttl: '3h' } },
  { family: 'sys/auth', label: 'tune an unknown token_type', method: 'POST', path: 'sys/auth/gcp/tune', body: { token_type: 'odd' } },
  { family: 'sys/auth', label: 'read tune of a missing mount', method: 'GET', path: 'sys/auth/missing/tune' },
  { family: 'sys/auth', label: 'list after enable and tune', method: 'GET', path: 'sys/auth' },

  // The GCP plugin: config.
  { family: 'gcp config', label: 'read before any write', method: 'GET', path: 'auth/gcp/config' },
  {
    family: 'gcp config',
    label: 'write aliases, metadata and endpoints',
    method: 'POST',
    path: 'auth/gcp/config',
    body: (_c, p) => ({ iam_alias: 'unique_id', gce_alias: 'instance_id', iam_metadata: ['project_id', 'role'], gce_metadata: 'default', custom_endpoint: p.endpoints }),
  },
  { family: 'gcp config', label: 'read', method: 'GET', path: 'auth/gcp/config' },
  { family: 'gcp config', label: 'merge one field', method: 'POST', path: 'auth/gcp/config', body: { iam_alias: 'role_id' } },
  { family: 'gcp config', label: 'read after merge', method: 'GET', path: 'auth/gcp/config' },
  { family: 'gcp config', label: 'an unknown iam_alias', method: 'POST', path: 'auth/gcp/config', body: { iam_alias: 'bogus' } },
  // The plugin stored the unknown alias and would refuse every login ("invalid IAM alias type"): set it back.
  { family: 'gcp config', label: 'iam_alias back to role_id', method: 'POST', path: 'auth/gcp/config', body: { iam_alias: 'role_id' } },
  { family: 'gcp config', label: 'read after an unknown iam_alias', method: 'GET', path: 'auth/gcp/config' },
  { family: 'gcp config', label: 'an unknown custom_endpoint key', method: 'POST', path: 'auth/gcp/config', body: { custom_endpoint: { sts2: 'http://127.0.0.1:1' } } },
  { family: 'gcp config', label: 'credentials that are not JSON', method: 'POST', path: 'auth/gcp/config', body: { credentials: 'not json' } },
  { family: 'gcp config', label: 'rotation_period (Enterprise only)', method: 'POST', path: 'auth/gcp/config', body: { rotation_period: 86400 } },
  { family: 'gcp config', label: 'an unknown field', method: 'POST', path: 'auth/gcp/config', body: { no_such_field: true } },
  {
    family: 'gcp config',
    label: 'credentials on another mount',
    method: 'POST',
    path: 'auth/gcp-keyed/config',
    body: (_c, p) => ({ credentials: JSON.stringify(p.emu.keyFile(SA.keyward.email)), gce_alias: 'instance_id' }),
  },
  { family: 'gcp config', label: 'read with credentials', method: 'GET', path: 'auth/gcp-keyed/config' },

  // The GCP plugin: roles.
  {
    family: 'gcp role',
    label: 'write iam',
    method: 'POST',
    path: 'auth/gcp/role/web',
    body: { type: 'iam', bound_service_accounts: [SA.app.email], token_ttl: '1h', token_policies: ['dev'] },
  },
  { family: 'gcp role', label: 'read iam', method: 'GET', path: 'auth/gcp/role/web' },
  { family: 'gcp role', label: 'change the type', method: 'POST', path: 'auth/gcp/role/web', body: { type: 'gce' } },
  { family: 'gcp role', label: 'max_jwt_exp 0', method: 'POST', path: 'auth/gcp/role/web', body: { max_jwt_exp: 0 } },
  { family: 'gcp role', label: 'read after max_jwt_exp 0', method: 'GET', path: 'auth/gcp/role/web' },
  { family: 'gcp role', label: 'max_jwt_exp back to 900', method: 'POST', path: 'auth/gcp/role/web', body: { max_jwt_exp: 900, token_bound_cidrs: ['127.0.0.1', '10.0.0.0/8'] } },
  { family: 'gcp role', label: 'read after max_jwt_exp 900', method: 'GET', path: 'auth/gcp/role/web' },
  { family: 'gcp role', label: 'edit service accounts', method: 'POST', path: 'auth/gcp/role/web/service-accounts', body: { add: [SA.other.email] } },
  { family: 'gcp role', label: 'read after the edit', method: 'GET', path: 'auth/gcp/role/web' },
  {
    family: 'gcp role',
    label: 'write gce',
    method: 'POST',
    path: 'auth/gcp/role/vm',
    body: { type: 'gce', bound_projects: ['proj-a'], bound_zones: ['us-east1-b'], bound_labels: ['env:prod'], token_type: 'service', add_group_aliases: true },
  },
  { family: 'gcp role', label: 'read gce', method: 'GET', path: 'auth/gcp/role/vm' },
  { family: 'gcp role', label: 'edit labels', method: 'POST', path: 'auth/gcp/role/vm/labels', body: { add: ['team:web'], remove: ['env:prod'] } },
  { family: 'gcp role', label: 'read after the label edit', method: 'GET', path: 'auth/gcp/role/vm' },
  { family: 'gcp role', label: 'list roles', method: 'LIST', path: 'auth/gcp/roles' },
  { family: 'gcp role', label: 'list role/', method: 'LIST', path: 'auth/gcp/role' },
  { family: 'gcp role', label: 'an unknown type', method: 'POST', path: 'auth/gcp/role/bad', body: { type: 'lambda' } },
  { family: 'gcp role', label: 'iam without service accounts', method: 'POST', path: 'auth/gcp/role/bad', body: { type: 'iam' } },
  { family: 'gcp role', label: 'iam with * and another account', method: 'POST', path: 'auth/gcp/role/bad', body: { type: 'iam', bound_service_accounts: ['*', SA.app.email] } },
  { family: 'gcp role', label: 'a bad label', method: 'POST', path: 'auth/gcp/role/bad', body: { type: 'gce', bound_labels: ['Not A Label'] } },
  {
    family: 'gcp role',
    label: 'max_jwt_exp above an hour',
    method: 'POST',
    path: 'auth/gcp/role/bad',
    body: { type: 'iam', bound_service_accounts: [SA.app.email], max_jwt_exp: 7200 },
  },
  { family: 'gcp role', label: 'read a missing role', method: 'GET', path: 'auth/gcp/role/missing' },
  { family: 'gcp role', label: 'edit a missing role', method: 'POST', path: 'auth/gcp/role/missing/labels', body: { add: ['a:b'] } },
  { family: 'gcp role', label: 'upper-case name', method: 'POST', path: 'auth/gcp/role/Upper', body: { type: 'iam', bound_service_accounts: ['*'] } },
  { family: 'gcp role', label: 'read upper-case name lower', method: 'GET', path: 'auth/gcp/role/upper' },

  // The GCP plugin: login.
  {
    family: 'gcp login',
    label: 'iam login',
    method: 'POST',
    path: 'auth/gcp/login',
    token: null,
    body: (_c, p) => ({ role: 'web', jwt: p.emu.mintServiceAccountJwt({ account: SA.app.email, audience: aud('web') }) }),
    save: (a, c) => {
      c.login = String(d(a).auth?.client_token ?? '');
      c.entity = String(d(a).auth?.entity_id ?? '');
    },
  },
  { family: 'gcp login', label: 'lookup-self of a login token', method: 'GET', path: 'auth/token/lookup-self', token: (c) => c.login },
  { family: 'gcp login', label: 'renew-self of a login token', method: 'POST', path: 'auth/token/renew-self', token: (c) => c.login, body: {} },
  { family: 'gcp login', label: 'entity of the login', method: 'GET', path: (c) => `identity/entity/id/${c.entity}` },
  {
    family: 'gcp login',
    label: 'gce login',
    method: 'POST',
    path: 'auth/gcp/login',
    token: null,
    body: (_c, p) => ({ role: 'vm', jwt: p.emu.mintInstanceToken({ instance: 'web-1', audience: aud('vm') }) }),
  },
  { family: 'gcp login', label: 'a JWT that is not one', method: 'POST', path: 'auth/gcp/login', token: null, body: { role: 'web', jwt: 'not.a.jwt' } },
  { family: 'gcp login', label: 'no jwt', method: 'POST', path: 'auth/gcp/login', token: null, body: { role: 'web' } },
  {
    family: 'gcp login',
    label: 'no role',
    method: 'POST',
    path: 'auth/gcp/login',
    token: null,
    body: (_c, p) => ({ jwt: p.emu.mintServiceAccountJwt({ account: SA.app.email, audience: aud('web') }) }),
  },
  {
    family: 'gcp login',
    label: 'a missing role',
    method: 'POST',
    path: 'auth/gcp/login',
    token: null,
    body: (_c, p) => ({ role: 'nope', jwt: p.emu.mintServiceAccountJwt({ account: SA.app.email, audience: aud('nope') }) }),
  },
  { family: 'gcp login', label: 'delete a role', method: 'DELETE', path: 'auth/gcp/role/vm' },
  { family: 'gcp login', label: 'read a deleted role', method: 'GET', path: 'auth/gcp/role/vm' },

  // Mount moves.
  {
    family: 'remount',
    label: 'move',
    method: 'POST',
    path: 'sys/remount',
    body: { from: 'auth/gcp-keyed', to: 'auth/gcp-moved' },
    save: keep('migration', (a) => d(a).data?.migration_id),
  },
  {
    family: 'remount',
    label: 'status of the move',
    method: 'GET',
    path: (c) => `sys/remount/status/${c.migration}`,
    until: (a) => (d(a).data?.migration_info as { status?: string } | undefined)?.status !== 'in-progress',
  },
  { family: 'remount', label: 'status of an unknown migration id', method: 'GET', path: 'sys/remount/status/00000000-0000-0000-0000-000000000000' },
  { family: 'remount', label: 'config at the new path', method: 'GET', path: 'auth/gcp-moved/config' },
  { family: 'remount', label: 'tune at the old path', method: 'GET', path: 'sys/auth/gcp-keyed/tune' },
  { family: 'remount', label: 'move a missing mount', method: 'POST', path: 'sys/remount', body: { from: 'auth/nope', to: 'auth/nope2' } },
  { family: 'remount', label: 'move onto a mount in use', method: 'POST', path: 'sys/remount', body: { from: 'auth/gcp-moved', to: 'auth/gcp' } },

  // Namespaces (OpenBao 2.x serves them).
  { family: 'namespace', label: 'create', method: 'POST', path: 'sys/namespaces/team', body: {} },
  { family: 'namespace', label: 'read', method: 'GET', path: 'sys/namespaces/team' },
  { family: 'namespace', label: 'list', method: 'LIST', path: 'sys/namespaces' },
  { family: 'namespace', label: 'enable gcp inside', method: 'POST', path: 'sys/auth/gcp', namespace: 'team', body: { type: 'gcp' } },
  { family: 'namespace', label: 'list mounts inside', method: 'GET', path: 'sys/auth', namespace: 'team' },
  { family: 'namespace', label: 'a role inside', method: 'POST', path: 'auth/gcp/role/web', namespace: 'team', body: { type: 'iam', bound_service_accounts: ['*'] } },
  { family: 'namespace', label: 'read the role inside', method: 'GET', path: 'auth/gcp/role/web', namespace: 'team' },
  { family: 'namespace', label: 'a missing namespace', method: 'GET', path: 'sys/auth', namespace: 'nowhere' },
  { family: 'namespace', label: 'disable inside', method: 'DELETE', path: 'sys/auth/gcp', namespace: 'team' },
  { family: 'namespace', label: 'delete', method: 'DELETE', path: 'sys/namespaces/team' },

  // Disable.
  { family: 'sys/auth', label: 'disable', method: 'DELETE', path: 'sys/auth/gcp' },
  { family: 'sys/auth', label: 'config of a disabled mount', method: 'GET', path: 'auth/gcp/config' },
  { family: 'sys/auth', label: 'disable a missing mount', method: 'DELETE', path: 'sys/auth/never' },
  { family: 'sys/auth', label: 'disable token', method: 'DELETE', path: 'sys/auth/token' },
  { family: 'sys/auth', label: 'list at the end', method: 'GET', path: 'sys/auth' },
  { family: 'policy', label: 'delete', method: 'DELETE', path: 'sys/policy/dev' },
  { family: 'policy', label: 'read a deleted policy', method: 'GET', path: 'sys/policy/dev' },
  { family: 'policy', label: 'delete default', method: 'DELETE', path: 'sys/policy/default' },
];

async function run(t: Target, s: Step, c: Ctx, p: Pair): Promise<Answer> {
  const tokenSpec = s.token === undefined ? undefined : get(s.token, c, p);
  for (let i = 0; ; i++) {
    const a = await t.request(s.method, get(s.path, c, p), { body: s.body === undefined ? undefined : get(s.body, c, p), token: tokenSpec, namespace: s.namespace });
    // A bound (60 s) well above what a move takes on a loaded machine; then the answer is compared as it is.
    if (!s.until || s.until(a) || i > 600) {
      s.save?.(a, c);
      return a;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the embedded engine answers as real OpenBao does', () => {
  let p: Pair;
  const ctx: Record<Target['name'], Ctx> = { openbao: {}, engine: {} };
  const observed: Observed[] = [];
  const families = new Map<string, { compared: number; identical: number }>();

  beforeAll(async () => {
    p = await startPair();
  }, 120_000);
  afterAll(async () => {
    await p?.close();
  });

  it.each(STEPS.map((s) => [`${s.family}: ${s.label}`, s] as const))('%s', async (request, s) => {
    const a = await run(p.openbao, s, ctx.openbao, p);
    const b = await run(p.engine, s, ctx.engine, p);
    const diffs = differences(a, b);
    const f = families.get(s.family) ?? { compared: 0, identical: 0 };
    f.compared++;
    if (diffs.length === 0) f.identical++;
    families.set(s.family, f);
    for (const x of diffs) observed.push({ suite: 'parity', request, field: x.field, openbao: x.openbao, engine: x.engine });
    // Bad input is a clear 4xx on the engine, never a 5xx.
    expect(b.status).toBeLessThan(500);
  });

  it('docs/engine.md names every field whose value the comparison ignores', () => {
    const doc = readFileSync(ENGINE_DOC, 'utf8');
    const section = doc.slice(doc.indexOf('## Differences from OpenBao'));
    expect(Object.keys(IGNORED_VALUES).filter((f) => !section.includes(`\`${f}\``))).toEqual([]);
  });

  it('prints the parity figure; the differences are exactly the ones docs/engine.md lists', () => {
    const t = realServerTools();
    const all = [...families.values()].reduce((x, y) => ({ compared: x.compared + y.compared, identical: x.identical + y.identical }), { compared: 0, identical: 0 });
    process.stdout.write(
      `engine parity with OpenBao ${t.baoVersion} + ${t.plugin.module}@${t.plugin.version}${t.plugin.fallback ? ' (FALLBACK plugin)' : ''}: ` +
        `${all.identical}/${all.compared} identical answers (${((100 * all.identical) / all.compared).toFixed(1)}%)\n` +
        [...families].map(([name, f]) => `  ${name}: ${f.identical}/${f.compared}`).join('\n') +
        '\n' +
        observed.map(describeObserved).join('\n') +
        '\n',
    );
    const { unlisted, unobserved } = reconcile(documentedDifferences('parity'), observed);
    expect({ unlisted: unlisted.map(describeObserved), unobserved }).toEqual({ unlisted: [], unobserved: [] });
  });
});
