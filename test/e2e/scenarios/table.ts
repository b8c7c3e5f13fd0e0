// The scenario table of issue 29: each row is one behaviour toward a server, as steps a user takes
// (apply, plan, destroy, adopt) and things the server does meanwhile. test/e2e/one-decision.test.ts
// runs every row through the CLI and through real terraform, so the two cannot differ silently.

import { CONTRACT_TOKEN, type ContractOptions, type VaultContract } from '../../support/vault-contract/server';
import type { Stack } from './stack';

export type Step =
  | { apply: Stack; force?: boolean; out?: RegExp[]; fails?: RegExp }
  | { plan: Stack; force?: boolean; changes?: boolean; out?: RegExp[]; notOut?: RegExp[] }
  /** A plan both paths refuse (non-zero exit), saying `out`. */
  | { refuses: Stack; out: RegExp }
  /**
   * A change the server accepts but cannot honour: the CLI plans it, labelled `locks-out`, and exits 4 (the review-rule
   * code) saying `out`; Terraform's plan refuses it (non-zero, its plan has no labels); the apply refuses it on both
   * paths (non-zero) saying `out`.
   */
  | { applyRefuses: Stack; out: RegExp }
  /** A plan only the CLI can refuse: it sees every object at once (Terraform plans each resource alone). */
  | { cliRefuses: Stack; out: RegExp }
  /**
   * Every front end's action per object for a change (made, not applied): Terraform's path checks
   * `keyward show` of its saved plan and the PR plan from its state; `cli` (keyward's own record,
   * keyed by path) where it may differ. The server's state after the apply that follows is checked by
   * a `check` step.
   */
  | { actions: Stack; expect: Record<string, string>; cli?: Record<string, string> }
  | { destroy: Stack; out?: RegExp[] }
  | { adopt: Stack }
  | { server: (v: VaultContract) => Promise<void> | void; why: string }
  | { check: (v: VaultContract) => void; why: string };

export interface Scenario {
  name: string;
  /** Issue 29's numbered defect; null: a shared decision the issue's Build asks for (roles). */
  defect: number | null;
  /** Talk to the cluster through a performance standby (lagging reads, node-local remount status). */
  via?: 'perfstandby';
  /** The contract server's options (default: Vault Enterprise). */
  contract?: ContractOptions;
  steps: Step[];
}

export const post = async (v: VaultContract, path: string, body: unknown): Promise<unknown> => {
  const r = await fetch(`${v.url}/v1/${path}`, { method: 'POST', headers: { 'x-vault-token': CONTRACT_TOKEN }, body: JSON.stringify(body) });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${path}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
};

const keyId = (v: VaultContract, mount = 'cloud') => v.gcp.get(mount)?.config.credentials?.private_key_id;
let rotated = '';
let issued = '';
const rotateRoot = async (v: VaultContract) => {
  const r = (await post(v, 'auth/cloud/config/rotate-root', {})) as { data: { private_key_id: string } };
  rotated = r.data.private_key_id;
};

const BASE: Stack = {
  path: 'cloud',
  config: { credentialsEnv: 'KW_CREDS', fields: { vm_alias: 'instance_id' } },
  roles: { web: { type: 'iam', bound_service_accounts: ['web@p.iam.gserviceaccount.com'], token_ttl: '1h' } },
};
const ROTATING: Stack = { ...BASE, config: { credentialsEnv: 'KW_CREDS', fields: { vm_alias: 'instance_id', rotation_period: '24h' } } };
const SERVER_KEY = /holds another key/;
const withConfig = (fields: Record<string, string>): Stack => ({ ...BASE, config: { credentialsEnv: 'KW_CREDS', fields } });
const gcs = (autoload: boolean) => ({
  fields: { storage_type: 'cloudtwo-store', interval: '12h', path_prefix: 'raft/', cloudtwo_bucket: 'gcs-snaps', autoload_enabled: autoload },
});
const autoload = (on: 'a' | 'b'): Stack => ({ ...BASE, snapshots: { a: gcs(on === 'a'), b: gcs(on === 'b') } });
const WITH_GCS: Stack = {
  ...BASE,
  snapshots: { gcs: { fields: { storage_type: 'cloudtwo-store', interval: '12h', retain: 5, path_prefix: 'raft/', cloudtwo_bucket: 'gcs-snaps' } } },
};
const roleOf = (v: VaultContract, name = 'web') => v.gcp.get('cloud')?.roles.get(name);
const roleRequests = (v: VaultContract) => v.requests.filter((r) => r.path === '/v1/auth/cloud/role/web' && r.method !== 'GET').map((r) => r.method);
let roleId: unknown;
const AS_VM: Stack = { ...BASE, roles: { web: { type: 'vm', bound_zones: ['europe-west1-b'], token_ttl: '1h' } } };
const VM_STAR: Stack = { ...BASE, roles: { web: { type: 'vm', bound_zones: ['europe-west1-b'], token_ttl: '1h', bound_service_accounts: ['*'] } } };
const WIF: Stack = {
  path: 'cloud',
  config: {
    fields: {
      service_account_email: 'vault@p.iam.gserviceaccount.com',
      identity_token_audience: '//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/v',
    },
  },
};
const keptRotated = (v: VaultContract) => {
  expect(keyId(v)).toBe(rotated);
  expect(v.problems).toEqual([]);
};

export const SCENARIOS: Scenario[] = [
  {
    name: 'rotate-root with no rotation declared: the rotated key is kept, the plan warns, apply does not send the dead key',
    defect: 1,
    steps: [
      { apply: BASE },
      { server: rotateRoot, why: 'an operator runs rotate-root' },
      { plan: BASE, changes: false, out: [SERVER_KEY] },
      { apply: BASE },
      { check: keptRotated, why: 'the rotated key is still in use' },
    ],
  },
  {
    name: 'rotation removed after Vault rotated: the rotation fields change, the key does not',
    defect: 1,
    steps: [
      { apply: ROTATING },
      { server: rotateRoot, why: 'Vault rotates on its schedule' },
      { plan: ROTATING, changes: false },
      { apply: BASE },
      { check: keptRotated, why: 'the rotated key is still in use' },
      { check: (v) => expect(v.gcp.get('cloud')!.config.rotation_period).toBe(0), why: 'rotation removed' },
    ],
  },
  {
    name: 'adopted after rotation (no last apply: CLI without record, terraform import): the server key wins',
    defect: 1,
    steps: [
      { apply: BASE },
      { server: rotateRoot, why: 'rotated before keyward took over' },
      { adopt: BASE },
      { plan: BASE, out: [SERVER_KEY] },
      { apply: BASE },
      { check: keptRotated, why: 'the rotated key is still in use' },
      { plan: BASE, changes: false, out: [SERVER_KEY] },
    ],
  },
  {
    name: 'the user forces the declared key explicitly (--resend / credentials_wo_version)',
    defect: 1,
    steps: [
      { apply: BASE },
      {
        server: (v) =>
          post(v, 'auth/cloud/config', {
            credentials: JSON.stringify({ type: 'service_account', private_key_id: 'set-by-hand', client_email: 'x@p.iam.gserviceaccount.com' }),
          }).then(() => undefined),
        why: 'a key set by hand',
      },
      { plan: BASE, changes: false, out: [SERVER_KEY] },
      { apply: BASE, force: true },
      { check: (v) => expect(keyId(v)).toBe('declared-1'), why: 'the declared key was sent' },
      { plan: BASE, changes: false, notOut: [SERVER_KEY] },
    ],
  },
  {
    name: 'destroy of a backend whose mount holds roles never managed: mount and config stay as they are',
    defect: 4,
    steps: [
      { apply: BASE },
      {
        server: (v) => post(v, 'auth/cloud/role/foreign', { type: 'iam', bound_service_accounts: ['f@p.iam.gserviceaccount.com'] }).then(() => undefined),
        why: 'a role made by hand',
      },
      { destroy: BASE },
      {
        check: (v) => {
          expect(v.mounts.has('cloud')).toBe(true);
          expect(keyId(v)).toBe('declared-1');
          expect(v.gcp.get('cloud')!.config.gce_alias).toBe('instance_id');
          expect([...v.gcp.get('cloud')!.roles.keys()]).toEqual(['foreign']);
        },
        why: 'config untouched, only the managed role deleted',
      },
    ],
  },
  {
    name: 'a mount move says that tokens and leases issued through the mount are revoked',
    defect: 2,
    steps: [
      { apply: BASE },
      { server: (v) => void (issued = v.issueToken('cloud')), why: 'a workload logged in through the mount' },
      { plan: { ...BASE, path: 'moved', movedFrom: 'cloud' }, changes: true, out: [/revokes every token and lease issued through the mount/] },
      { apply: { ...BASE, path: 'moved', movedFrom: 'cloud' } },
      { check: (v) => expect([v.mounts.has('moved'), v.mounts.has('cloud'), v.tokens.has(issued)]).toEqual([true, false, false]), why: 'moved; the token is revoked' },
    ],
  },
  {
    name: 'a stored secret nobody declared: the plan that would remove it says so, by field',
    defect: 3,
    steps: [
      { apply: BASE },
      {
        server: (v) =>
          post(v, 'sys/storage/raft/snapshot-auto/config/gcs', {
            storage_type: 'google-gcs',
            interval: 43200,
            path_prefix: 'raft/',
            google_gcs_bucket: 'gcs-snaps',
            google_service_account_key: '{"type":"service_account"}',
          }).then(() => undefined),
        why: 'a GCS config made by hand with its key',
      },
      { adopt: WITH_GCS },
      { plan: WITH_GCS, changes: true, out: [/cloudtwo_service_account_key is stored on the server but not declared/] },
      { check: (v) => expect(v.snapshots.get('gcs')!.google_service_account_key).toBe('{"type":"service_account"}'), why: 'a plan writes nothing' },
    ],
  },
  {
    name: 'fields Vault validates together go together: a window-only change sends the schedule too',
    defect: 5,
    steps: [
      { apply: withConfig({ rotation_schedule: '0 3 * * SAT', rotation_window: '2h' }) },
      { apply: withConfig({ rotation_schedule: '0 3 * * SAT', rotation_window: '3h' }) },
      { check: (v) => expect(v.gcp.get('cloud')!.config).toMatchObject({ rotation_schedule: '0 3 * * SAT', rotation_window: 10800 }), why: 'the window changed' },
    ],
  },
  {
    name: 'autoload moves from one snapshot config to another: the disable lands before the enable',
    defect: 6,
    steps: [
      { apply: autoload('b') },
      { server: (v) => void (v.snapshotOptions.delayAutoloadDisableMs = 1500), why: 'a disable sent alongside the enable lands after it' },
      { apply: autoload('a') },
      { check: (v) => expect([v.snapshots.get('a')!.autoload_enabled, v.snapshots.get('b')!.autoload_enabled]).toEqual([true, false]), why: 'moved' },
      { cliRefuses: { ...BASE, snapshots: { a: gcs(true), b: gcs(true) } }, out: /autoload_enabled is declared on 2 snapshot configs/ },
    ],
  },
  {
    name: "azure_auth_mode is always sent (a shared-key config at keyward's default too)",
    defect: 7,
    steps: [
      {
        apply: {
          ...BASE,
          snapshots: {
            az: {
              fields: { storage_type: 'cloudthree-store', interval: '6h', path_prefix: 'raft/', cloudthree_container_name: 'snaps', cloudthree_account_name: 'kw' },
              secrets: { cloudthree_account_key: 'KW_AZ' },
            },
          },
        },
      },
      { check: (v) => expect(v.snapshots.get('az')).toMatchObject({ azure_auth_mode: 'shared', azure_account_key: 'az-key-value' }), why: 'sent' },
    ],
  },
  {
    name: 'a stored max_jwt_exp 0 reads as 0 and the default is written back',
    defect: 8,
    steps: [
      { apply: BASE },
      { server: (v) => post(v, 'auth/cloud/role/web', { max_jwt_exp: 0 }).then(() => undefined), why: 'max_jwt_exp set to 0 by hand (refuses every JWT)' },
      { plan: BASE, changes: true },
      { apply: BASE },
      { check: (v) => expect(v.gcp.get('cloud')!.roles.get('web')!.max_jwt_exp).toBe(900), why: 'back to 900' },
    ],
  },
  {
    name: 'a declared value equal to the default is written (identity_token_ttl = 1h on a new config)',
    defect: 8,
    steps: [
      {
        apply: {
          path: 'cloud',
          config: {
            fields: {
              service_account_email: 'vault@p.iam.gserviceaccount.com',
              identity_token_audience: '//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/v',
              identity_token_ttl: '1h',
            },
          },
        },
      },
      { check: (v) => expect(v.gcp.get('cloud')!.config.identity_token_ttl).toBe(3600), why: 'written, not left at the stored 0' },
    ],
  },
  {
    name: 'identity_token_ttl: a stored 0 reads as 0, so a declared 1h is written on an existing config; a config that never declares it plans no change',
    defect: 8,
    steps: [
      { apply: WIF },
      { check: (v) => expect(v.gcp.get('cloud')!.config.identity_token_ttl).toBe(0), why: 'never sent: Vault stores 0' },
      { plan: WIF, changes: false },
      { plan: { ...WIF, config: { fields: { ...WIF.config!.fields, identity_token_ttl: '1h' } } }, changes: true, out: [/identity_token_ttl/] },
      { apply: { ...WIF, config: { fields: { ...WIF.config!.fields, identity_token_ttl: '1h' } } } },
      { check: (v) => expect(v.gcp.get('cloud')!.config.identity_token_ttl).toBe(3600), why: 'written, not hidden behind a 0 read as 3600' },
      { plan: { ...WIF, config: { fields: { ...WIF.config!.fields, identity_token_ttl: '1h' } } }, changes: false },
    ],
  },
  {
    name: 'through a performance standby: reads after writes are consistent (X-Vault-Index), a move completes although its status is node-local',
    defect: 9,
    via: 'perfstandby',
    steps: [
      { apply: BASE },
      { apply: { ...BASE, path: 'moved', movedFrom: 'cloud' } },
      { check: (v) => expect([v.mounts.has('moved'), v.mounts.has('cloud')]).toEqual([true, false]), why: 'moved' },
      { check: (v) => expect(v.requests.filter((r) => r.method === 'POST' && r.path === '/v1/sys/remount')).toHaveLength(1), why: 'remount sent once' },
    ],
  },
  {
    name: 'a move whose response is lost is not sent again: the mount table says it happened',
    defect: 9,
    steps: [
      { apply: BASE },
      { server: (v) => void v.loseNextResponse.add('POST sys/remount'), why: 'the remount is carried out, its response lost' },
      { apply: { ...BASE, path: 'moved', movedFrom: 'cloud' } },
      { check: (v) => expect(v.requests.filter((r) => r.method === 'POST' && r.path === '/v1/sys/remount')).toHaveLength(1), why: 'remount sent once' },
      { plan: { ...BASE, path: 'moved', movedFrom: 'cloud' }, changes: false },
    ],
  },
  {
    name: 'a move whose status the server forgot (404: a leader change or a restart) completes: the mount table says it happened, the resource stays in state',
    defect: 9,
    steps: [
      { apply: BASE },
      { server: (v) => void (v.remountOptions.forgetNext = true), why: 'the migration id is forgotten at once: its status reads 404' },
      { apply: { ...BASE, path: 'moved', movedFrom: 'cloud' } },
      { check: (v) => expect([v.mounts.has('moved'), v.mounts.has('cloud')]).toEqual([true, false]), why: 'moved' },
      {
        check: (v) => expect(v.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/sys/remount/status/')).length).toBeLessThan(3),
        why: 'no polling of a status that will never come',
      },
      { plan: { ...BASE, path: 'moved', movedFrom: 'cloud' }, changes: false },
    ],
  },
  {
    name: 'a vm role with `*` toward Vault or OpenBao, a lock-out (the real plugin compares `*` literally): the CLI plans it labelled and exits 4, Terraform refuses the plan; apply refuses it on both paths, nothing is written',
    defect: null,
    steps: [
      { apply: BASE },
      { server: (v) => void v.requests.splice(0), why: 'count the requests of the refused plans and applies only' },
      { applyRefuses: VM_STAR, out: /bound_service_accounts.*on Vault and OpenBao `\*` on a vm role is a literal: no VM matches; list the service accounts/ },
      { applyRefuses: { ...BASE, roles: { ...BASE.roles, batch: VM_STAR.roles!.web } }, out: /on Vault and OpenBao `\*` on a vm role is a literal/ },
      { check: (v) => expect(v.requests.filter((r) => r.method !== 'GET')).toEqual([]), why: 'nothing written' },
      { check: (v) => expect(v.gcp.get('cloud')!.roles.get('web')!.type).toBe('iam'), why: 'the role is as applied' },
    ],
  },
  {
    name: 'a vm role that already holds `*` on Vault or OpenBao: every plan warns that its VMs are locked out',
    defect: null,
    steps: [
      { apply: AS_VM },
      { server: (v) => post(v, 'auth/cloud/role/web', { bound_service_accounts: ['*'] }).then(() => undefined), why: '`*` set by hand on the vm role' },
      { plan: VM_STAR, changes: false, out: [/on Vault and OpenBao `\*` on a vm role is a literal: no VM matches; list the service accounts/, /already holds it on the server/] },
    ],
  },
  {
    name: 'OpenBao: a declared rotation or workload identity field fails the plan naming OpenBao (its GCP plugin has neither), nothing is written',
    defect: null,
    contract: { flavor: 'openbao', gcpPluginName: 'gcp' },
    steps: [
      { apply: BASE },
      { server: (v) => void v.requests.splice(0), why: 'count the requests of the refused plans only' },
      { refuses: ROTATING, out: /OpenBao 2\.2\.0 has no rotation_period: its GCP auth plugin has no automated root rotation/ },
      {
        refuses: { ...BASE, config: { credentialsEnv: 'KW_CREDS', fields: { vm_alias: 'instance_id', disable_automated_rotation: false } } },
        out: /OpenBao 2\.2\.0 has no disable_automated_rotation/,
      },
      { refuses: WIF, out: /OpenBao 2\.2\.0 has no identity_token_audience: its GCP auth plugin has no workload identity federation/ },
      { check: (v) => expect(v.requests.filter((r) => r.method !== 'GET')).toEqual([]), why: 'nothing written' },
      { plan: BASE, changes: false },
    ],
  },
  {
    name: "a role's type change deletes the role before it creates it again, with a new role_id; the plan says it is replaced",
    defect: null,
    steps: [
      { apply: BASE },
      { server: (v) => void (roleId = roleOf(v)?.role_id), why: 'the role_id before' },
      { plan: AS_VM, changes: true, out: [/replace/] },
      { server: (v) => void v.requests.splice(0), why: 'count the requests of the apply only' },
      { apply: AS_VM },
      { check: (v) => expect(roleRequests(v)).toEqual(['DELETE', 'POST']), why: 'delete, then create' },
      { check: (v) => expect([roleOf(v)?.type, roleOf(v)?.role_id === roleId]).toEqual(['gce', false]), why: 'a vm role, a new role_id' },
      { plan: AS_VM, changes: false },
    ],
  },
  {
    name: 'a role changed by hand is written back in place: one write of the changed fields, the role_id kept',
    defect: null,
    steps: [
      { apply: BASE },
      { server: (v) => void (roleId = roleOf(v)?.role_id), why: 'the role_id before' },
      { server: (v) => post(v, 'auth/cloud/role/web', { token_max_ttl: 86400, token_ttl: 7200 }).then(() => undefined), why: 'token_max_ttl and token_ttl changed by hand' },
      { plan: BASE, changes: true },
      { server: (v) => void v.requests.splice(0), why: 'count the requests of the apply only' },
      { apply: BASE },
      { check: (v) => expect(roleRequests(v)).toEqual(['POST']), why: 'one write, no delete' },
      { check: (v) => expect([roleOf(v)?.token_max_ttl, roleOf(v)?.token_ttl, roleOf(v)?.role_id === roleId]).toEqual([0, 3600, true]), why: 'back to the declaration, same role' },
      { plan: BASE, changes: false },
    ],
  },
  {
    name: 'path changed without movedFrom: Terraform moves the mount (sys/remount), and show and the PR plan say so; keyward apply (keyed by path) deletes and creates',
    defect: 40,
    steps: [
      { apply: BASE },
      {
        actions: { ...BASE, path: 'cloud2' },
        expect: { 'auth/cloud2': 'update', 'auth/cloud2/config': 'no-op', 'auth/cloud2/role/web': 'no-op' },
        cli: { 'auth/cloud': 'delete', 'auth/cloud2': 'create', 'auth/cloud2/config': 'create', 'auth/cloud/role/web': 'delete', 'auth/cloud2/role/web': 'create' },
      },
      { apply: { ...BASE, path: 'cloud2' } },
      {
        check: (v) => expect([v.mounts.has('cloud2'), v.mounts.has('cloud'), [...(v.gcp.get('cloud2')?.roles.keys() ?? [])]]).toEqual([true, false, ['web']]),
        why: 'the mount is at cloud2 with its role',
      },
    ],
  },
  {
    name: 'config removed from the stack: no longer managed, the server keeps it (every front end)',
    defect: 40,
    steps: [
      { apply: BASE },
      { actions: { ...BASE, config: undefined }, expect: { 'auth/cloud': 'no-op', 'auth/cloud/config': 'no-op', 'auth/cloud/role/web': 'no-op' } },
      { apply: { ...BASE, config: undefined } },
      { check: (v) => expect([keyId(v), v.gcp.get('cloud')!.config.gce_alias]).toEqual(['declared-1', 'instance_id']), why: 'the config is as it was' },
      { plan: { ...BASE, config: undefined }, changes: false },
    ],
  },
  {
    name: 'a role removed from a RETAIN backend: deleted (RETAIN is for the whole backend Terraform forgets), said by every front end',
    defect: 40,
    steps: [
      { apply: { ...BASE, retain: true, roles: { ...BASE.roles, api: { type: 'iam', bound_service_accounts: ['api@p.iam.gserviceaccount.com'] } } } },
      { actions: { ...BASE, retain: true }, expect: { 'auth/cloud': 'no-op', 'auth/cloud/config': 'no-op', 'auth/cloud/role/api': 'delete', 'auth/cloud/role/web': 'no-op' } },
      { plan: { ...BASE, retain: true }, changes: true, out: [/stops renewing/], notOut: [/Terraform forgets it/] },
      { apply: { ...BASE, retain: true } },
      { check: (v) => expect([...v.gcp.get('cloud')!.roles.keys()]).toEqual(['web']), why: 'the role is deleted' },
    ],
  },
  {
    name: 'a mount replaced (local changes): its config and roles are replaced with it, said by every front end, and written again whole',
    defect: 40,
    steps: [
      { apply: BASE },
      { server: (v) => void (roleId = roleOf(v)?.role_id), why: 'the role_id before' },
      { actions: { ...BASE, local: true }, expect: { 'auth/cloud': 'replace', 'auth/cloud/config': 'replace', 'auth/cloud/role/web': 'replace' } },
      { plan: { ...BASE, local: true }, changes: true, out: [/replacing the mount disables it and enables it again/, /stops renewing/] },
      { apply: { ...BASE, local: true } },
      {
        check: (v) =>
          expect([v.mounts.get('cloud')?.local, keyId(v), v.gcp.get('cloud')!.config.gce_alias, roleOf(v)?.token_ttl, roleOf(v)?.role_id === roleId]).toEqual([
            true,
            'declared-1',
            'instance_id',
            3600,
            false,
          ]),
        why: 'a local mount with its config and role written again (a new role_id)',
      },
      { plan: { ...BASE, local: true }, changes: false },
    ],
  },
  {
    name: 'switch to workload identity over a key set outside keyward: the plan says the key is cleared, the apply clears it in the same write',
    defect: 40,
    steps: [
      { apply: { path: 'cloud', roles: BASE.roles } },
      {
        server: (v) =>
          post(v, 'auth/cloud/config', {
            credentials: JSON.stringify({ type: 'service_account', private_key_id: 'set-by-hand', client_email: 'x@p.iam.gserviceaccount.com' }),
          }).then(() => undefined),
        why: 'a key set by hand',
      },
      { plan: { ...WIF, roles: BASE.roles }, changes: true, out: [/clears the server's key/] },
      { apply: { ...WIF, roles: BASE.roles } },
      {
        check: (v) => expect([keyId(v), v.gcp.get('cloud')!.config.identity_token_audience]).toEqual([undefined, WIF.config!.fields!.identity_token_audience]),
        why: 'the key cleared, WIF set',
      },
      { plan: { ...WIF, roles: BASE.roles }, changes: false },
    ],
  },
  {
    name: 'after a move, the config rotation fields are written again (Vault Enterprise drops the moved mount rotation), and the move warning says so',
    defect: 40,
    steps: [
      { apply: ROTATING },
      { check: (v) => expect(v.rotations.has('cloud')).toBe(true), why: 'rotation registered at cloud' },
      { plan: { ...ROTATING, path: 'moved', movedFrom: 'cloud' }, changes: true, out: [/rotation fields are written again after the move/] },
      { apply: { ...ROTATING, path: 'moved', movedFrom: 'cloud' } },
      { check: (v) => expect([v.rotations.has('cloud'), v.rotations.get('moved')?.period]).toEqual([false, 86400]), why: 'registered again at the new path' },
      { plan: { ...ROTATING, path: 'moved', movedFrom: 'cloud' }, changes: false },
    ],
  },
];
