// The contract server's OpenBao mode (test/support/vault-contract, `flavor: 'openbao'`) rechecked against real
// OpenBao (issue 39, Build 7): the same requests to both, answer against answer, for each assumption the stand-in makes
// about OpenBao (docs/vault-enterprise.md, "Contract server assumptions"). The stand-in stays where a test needs what a
// real server cannot do on cue (a lost response, a pending migration, a ManualClock-driven agent in a unit-speed
// test); this suite keeps it honest. docs/real-servers.md lists what it found.
//
// Not compared here: `GET sys/storage/raft/snapshot` (a dev server has no raft storage; the raft cluster's real archive
// is application/gzip where the stand-in serves opaque application/octet-stream bytes: the archive verifier's work
// replaces those), and `sys/remount/status/<unknown id>` (404 on OpenBao, 400 in the stand-in: its fix belongs to the
// mount-move work, docs/real-servers.md).

import { serviceAccountKey } from '../integration/reconcile/helpers';
import { baoRequest, realServerTools, startOpenBaoDev, type OpenBaoDev } from '../support/openbao';
import { CONTRACT_TOKEN, startVaultContract, type VaultContract } from '../support/vault-contract/server';

type Body = Record<string, unknown>;
interface Answer {
  status: number;
  body: Body;
}

/** What of an answer a check compares: its status and a projection of its body. */
interface Check {
  what: string;
  method: string;
  path: string;
  body?: Body;
  /** Without a token (sys/health). */
  anonymous?: boolean;
  /** The part of the body compared (default: the errors, when the status is an error; nothing otherwise). */
  view?: (b: Body) => unknown;
}

const dataKeys = (b: Body) => Object.keys((b.data as Body | undefined) ?? {}).sort();
const CREDS = serviceAccountKey('contract-check-1');

const CHECKS: Check[] = [
  // sys/health: no `enterprise` field (keyward's OpenBao detection rests on it), a 2.x version, the same field set.
  { what: 'health field set', method: 'GET', path: 'sys/health', anonymous: true, view: (b) => Object.keys(b).sort() },
  {
    what: 'health has no enterprise field, a 2.x version',
    method: 'GET',
    path: 'sys/health',
    anonymous: true,
    view: (b) => ({ enterprise: 'enterprise' in b, major: String(b.version).split('.')[0] }),
  },
  // Enterprise-only paths are a bare 404 "unsupported path", as any unregistered path.
  { what: 'license status', method: 'GET', path: 'sys/license/status' },
  { what: 'snapshot-auto config read', method: 'GET', path: 'sys/storage/raft/snapshot-auto/config/x' },
  // GET ?list=true, as keyward's client lists: Node's HTTP parser, under the stand-in, refuses the LIST verb (400).
  { what: 'snapshot-auto config list', method: 'GET', path: 'sys/storage/raft/snapshot-auto/config?list=true' },
  { what: 'snapshot-auto config write', method: 'POST', path: 'sys/storage/raft/snapshot-auto/config/x', body: { storage_type: 'local', interval: 3600, path_prefix: '/tmp/x' } },
  { what: 'snapshot-auto status', method: 'GET', path: 'sys/storage/raft/snapshot-auto/status/x' },
  // The token paths the snapshot agent calls with the operator's root token.
  {
    what: 'capabilities-self with paths',
    method: 'POST',
    path: 'sys/capabilities-self',
    body: { paths: ['sys/storage/raft/snapshot', 'auth/gcp/config'] },
    view: (b) => ({ data: b.data, top: b['sys/storage/raft/snapshot'], capabilities: b.capabilities }),
  },
  {
    what: 'capabilities-self with path',
    method: 'POST',
    path: 'sys/capabilities-self',
    body: { path: 'sys/storage/raft/snapshot' },
    view: (b) => ({ data: b.data, capabilities: b.capabilities }),
  },
  {
    what: 'root token lookup-self',
    method: 'GET',
    path: 'auth/token/lookup-self',
    view: (b) => {
      const d = b.data as Body;
      return { ttl: d.ttl, renewable: d.renewable, policies: d.policies };
    },
  },
  { what: 'root token renew-self', method: 'POST', path: 'auth/token/renew-self', body: {} },
  // The catalog: no built-in cloud auth methods, only what was registered.
  { what: 'an auth type not in the catalog', method: 'POST', path: 'sys/auth/az', body: { type: 'azure' } },
  { what: 'the registered plugin mounts', method: 'POST', path: 'sys/auth/gcp', body: { type: 'gcp' } },
  // The GCP plugin OpenBao runs: no rotation fields, no identity tokens, no rotate-root.
  { what: 'config rotation_period', method: 'POST', path: 'auth/gcp/config', body: { rotation_period: 86400 } },
  { what: 'config rotation_schedule', method: 'POST', path: 'auth/gcp/config', body: { rotation_schedule: '0 3 * * SAT' } },
  { what: 'config rotation_window', method: 'POST', path: 'auth/gcp/config', body: { rotation_window: 3600 } },
  { what: 'config disable_automated_rotation', method: 'POST', path: 'auth/gcp/config', body: { disable_automated_rotation: true } },
  { what: 'config WIF without service_account_email', method: 'POST', path: 'auth/gcp/config', body: { identity_token_audience: 'aud' } },
  { what: 'config WIF complete', method: 'POST', path: 'auth/gcp/config', body: { identity_token_audience: 'aud', service_account_email: 'wif@p.iam.gserviceaccount.com' } },
  { what: 'config unknown field', method: 'POST', path: 'auth/gcp/config', body: { gce_alias: 'instance_id', no_such_field: 1 } },
  { what: 'config read of a fresh mount: field set', method: 'GET', path: 'auth/gcp/config', view: dataKeys },
  { what: 'config write', method: 'POST', path: 'auth/gcp/config', body: { credentials: CREDS, gce_alias: 'instance_id', service_account_email: 'x@p.iam.gserviceaccount.com' } },
  { what: 'config read after a write: field set', method: 'GET', path: 'auth/gcp/config', view: dataKeys },
  { what: 'rotate-root', method: 'POST', path: 'auth/gcp/config/rotate-root', body: {} },
  // Errors the plugin returns as a response (not a Go error) stay bare on OpenBao too.
  { what: 'iam role: * beside other accounts', method: 'POST', path: 'auth/gcp/role/w', body: { type: 'iam', bound_service_accounts: ['*', 'x@p.iam.gserviceaccount.com'] } },
  {
    what: 'role write',
    method: 'POST',
    path: 'auth/gcp/role/r',
    body: { type: 'iam', bound_service_accounts: ['a@p.iam.gserviceaccount.com'], token_bound_cidrs: ['192.168.1.7/32', '10.0.0.0/8', '::1/128'] },
  },
  // Host CIDRs read back without /32 and /128; empty bound_* lists and a zero max_jwt_exp are left out of the read.
  {
    what: 'role read: CIDRs and field set',
    method: 'GET',
    path: 'auth/gcp/role/r',
    view: (b) => ({ keys: dataKeys(b).filter((k) => k !== 'role_id'), cidrs: (b.data as Body).token_bound_cidrs }),
  },
  { what: 'role max_jwt_exp 0', method: 'POST', path: 'auth/gcp/role/r', body: { max_jwt_exp: 0 } },
  { what: 'role read without max_jwt_exp', method: 'GET', path: 'auth/gcp/role/r', view: (b) => 'max_jwt_exp' in (b.data as Body) },
  { what: 'role write with an unknown field', method: 'POST', path: 'auth/gcp/role/r', body: { type: 'iam', bound_service_accounts: ['a@p.iam.gserviceaccount.com'], bogus: 1 } },
];

async function ask(url: string, token: string, c: Check): Promise<Answer> {
  const r = await baoRequest<Body>(url, c.method, c.path, { token: c.anonymous ? undefined : token, body: c.body });
  return { status: r.status, body: r.body };
}

const compared = (a: Answer, c: Check) => ({ status: a.status, view: c.view ? c.view(a.body) : a.status >= 400 ? a.body.errors : undefined });

describe("the contract server's OpenBao mode answers as real OpenBao", () => {
  let real: OpenBaoDev;
  let standIn: VaultContract;
  const answers = new Map<string, { real: Answer; standIn: Answer }>();

  beforeAll(async () => {
    const t = realServerTools();
    process.stdout.write(
      `real OpenBao ${t.baoVersion}; GCP auth plugin ${t.plugin.module}@${t.plugin.version}${t.plugin.fallback ? ' (FALLBACK: HashiCorp v0.19.1 in place of OpenBao fork)' : ''}\n`,
    );
    real = await startOpenBaoDev();
    // The harness registers the plugin as `gcp`; the stand-in is told the same name.
    standIn = await startVaultContract({ flavor: 'openbao', gcpPluginName: t.plugin.name });
    // In order: later checks depend on earlier writes (the mount, the config), on both servers alike.
    for (const c of CHECKS) answers.set(c.what, { real: await ask(real.url, real.token, c), standIn: await ask(standIn.url, CONTRACT_TOKEN, c) });
  }, 60_000);
  afterAll(async () => {
    await real?.close();
    await standIn?.close();
  });

  it.each(CHECKS.map((c) => [c.what, c] as const))('%s', (what, c) => {
    const a = answers.get(what)!;
    expect({ what, ...compared(a.standIn, c) }).toEqual({ what, ...compared(a.real, c) });
  });
});
