// Every field keyward writes to auth/<mount>/config and auth/<mount>/role/<name> round-trips through the real GCP
// plugin on real OpenBao (issue 39, Build 3): `keyward apply` writes it with a non-default value, keyward's client
// reads it back (translated from Vault's names), and the read in keyward's canonical form equals the declared value in
// canonical form; then a second plan is empty. The field lists come from keyward's own field tables
// (src/schema/cloud-config-fields.ts, src/schema/cloud-role-fields.ts, whose Vault names feed the translator's rename
// tables in src/client/dialect/tables.ts): a field added to a table with neither a value below nor a named exclusion
// fails the first test.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudAuthApi } from '../../src/client/cloud-auth';
import { FIELD_NAMES } from '../../src/client/dialect/tables';
import { VaultClient } from '../../src/client/vault-client';
import { desiredConfigFields, desiredRoleFields, finishRole, liveConfigFields, liveRoleFields, mountFields } from '../../src/reconcile/canonical';
import { MOUNT_FIELDS } from '../../src/schema/auth-mount-fields';
import { CLOUD_CONFIG_FIELDS } from '../../src/schema/cloud-config-fields';
import { ROLE_FIELDS, type RoleType } from '../../src/schema/cloud-role-fields';
import { serviceAccountKey } from '../integration/reconcile/helpers';
import { terraformPath } from '../e2e/scenarios/paths';
import type { Scalar } from '../e2e/scenarios/stack';
import { runKeyward } from '../support/keyward-in-process';
import { baoRequest, realServerTools, startOpenBaoDev, type OpenBaoDev } from '../support/openbao';

/** A non-default value for every config field keyward writes, as a user declares it (keyward's names). */
const CONFIG_VALUES: Record<string, unknown> = {
  iam_alias: 'unique_id',
  iam_metadata: ['role', 'project_id'],
  vm_alias: 'instance_id',
  vm_metadata: ['zone', 'instance_id', 'project_number'],
  custom_endpoint: { api: 'https://api.example.test', iam: 'https://iam.example.test', crm: 'https://crm.example.test', compute: 'https://compute.example.test' },
  // Stored by OpenBao on its own (the plugin knows it; without an audience it is the account keyward's key belongs to).
  service_account_email: 'wif@p.iam.gserviceaccount.com',
};

/** The mount's own fields (sys/auth enable and tune), a non-default value each: every one is written by keyward. */
const MOUNT_VALUES: Record<string, unknown> = {
  description: 'logins from Google Cloud',
  local: true,
  default_lease_ttl: '2h',
  max_lease_ttl: '48h',
  token_type: 'default-batch',
  listing_visibility: 'hidden',
};

/** Config fields not round-tripped here, each with its reason. `refusedBy` is a write the real server must refuse. */
const CONFIG_EXCLUDED: Record<string, { why: string; refusedBy?: Record<string, unknown> }> = {
  credentials: { why: 'write-only secret, never read back: its identity (private_key_id, client_email) is compared instead' },
  identity_token_audience: {
    why: 'OpenBao has no plugin identity tokens (WIF): a write answers 500 unknown method GenerateIdentityToken',
    refusedBy: {
      identity_token_audience: '//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/v',
      service_account_email: 'wif@p.iam.gserviceaccount.com',
    },
  },
  identity_token_ttl: {
    why: "refused by keyward's plan toward OpenBao (objects/auth-config.ts): OpenBao's own GCP plugin has no identity_token_* fields (422), and plugin v0.19.1, which stores it, cannot use it without identity tokens",
  },
  rotation_period: { why: "OpenBao's plugin host has no rotation manager: unknown field (422)", refusedBy: { rotation_period: 86400 } },
  rotation_schedule: { why: 'as rotation_period', refusedBy: { rotation_schedule: '0 3 * * SAT' } },
  rotation_window: { why: 'as rotation_period', refusedBy: { rotation_schedule: '0 3 * * SAT', rotation_window: 7200 } },
  disable_automated_rotation: { why: 'as rotation_period', refusedBy: { disable_automated_rotation: true } },
};

/** A non-default value for every canonical role field (both types' fields; each role gets those of its type). */
const ROLE_VALUES: Record<string, unknown> = {
  type: undefined, // set per role below
  bound_service_accounts: ['b@p.iam.gserviceaccount.com', 'a@p.iam.gserviceaccount.com'],
  bound_projects: ['p2', 'p1'],
  add_group_aliases: true,
  max_jwt_exp: '30m',
  allow_vm_inference: false,
  bound_zones: ['europe-west1-c', 'europe-west1-b'],
  bound_regions: ['us-central1', 'europe-west1'],
  bound_instance_groups: ['ig-2', 'ig-1'],
  bound_labels: { team: 'payments', env: 'prod' },
  token_policies: ['web', 'audit'],
  token_ttl: '1h',
  token_max_ttl: '2h',
  token_explicit_max_ttl: '3h',
  token_period: '30m',
  token_no_default_policy: true,
  token_num_uses: 5,
  token_type: 'service',
  // A host written with /32 (Vault stores it without) and a network: both compare in canonical form.
  token_bound_cidrs: ['192.168.1.7/32', '10.0.0.0/8'],
};

/** Role table entries keyward never writes under their own name. Derived from the table, not a hand list. */
const ROLE_EXCLUDED: Record<string, string> = Object.fromEntries([
  ['name', 'the role name is the path (auth/<mount>/role/<name>), not a field'],
  ...ROLE_FIELDS.filter((f) => f.aliasOf).map((f) => [f.name, `deprecated alias: keyward folds it into ${f.aliasOf} (round-tripped) and writes that`]),
]);

const CREDS = serviceAccountKey('roundtrip-key-1');
const ROLE_TYPES: RoleType[] = ['iam', 'vm'];
const appliesTo = (type: RoleType) => ROLE_FIELDS.filter((f) => !f.aliasOf && f.name !== 'name' && (f.appliesTo === 'both' || f.appliesTo === type)).map((f) => f.name);
const declaredRole = (type: RoleType) => Object.fromEntries(appliesTo(type).map((n) => [n, n === 'type' ? type : ROLE_VALUES[n]]));

describe('every field keyward writes round-trips through the real GCP plugin', () => {
  it('covers every field of the tables: each has a value or a named exclusion, and nothing else is listed', () => {
    expect(MOUNT_FIELDS.map((f) => f.name).sort()).toEqual(Object.keys(MOUNT_VALUES).sort());
    const mountDefaults = mountFields('cloud', {});
    const mountDeclared = mountFields('cloud', MOUNT_VALUES);
    expect(Object.keys(MOUNT_VALUES).filter((n) => mountDeclared[n] === mountDefaults[n])).toEqual([]);
    const configNames = CLOUD_CONFIG_FIELDS.map((f) => f.name).sort();
    const roleNames = ROLE_FIELDS.map((f) => f.name).sort();
    expect(configNames.filter((n) => !(n in CONFIG_VALUES) && !(n in CONFIG_EXCLUDED))).toEqual([]);
    expect(roleNames.filter((n) => !(n in ROLE_VALUES) && !(n in ROLE_EXCLUDED))).toEqual([]);
    expect([...Object.keys(CONFIG_VALUES), ...Object.keys(CONFIG_EXCLUDED)].filter((n) => !configNames.includes(n))).toEqual([]);
    expect([...Object.keys(ROLE_VALUES), ...Object.keys(ROLE_EXCLUDED)].filter((n) => !roleNames.includes(n))).toEqual([]);
    // The translator's renames are the tables' (a rename of a field the tables lack would escape the round trip).
    expect(Object.keys(FIELD_NAMES['cloud-config']).filter((n) => !configNames.includes(n))).toEqual([]);
    expect(Object.keys(FIELD_NAMES['cloud-role']).filter((n) => !roleNames.includes(n))).toEqual([]);
    // Every value is not the field's default, else a write that is dropped would still read back "equal".
    const dflt = desiredConfigFields('defaults', {});
    const declared = desiredConfigFields('declared', CONFIG_VALUES);
    expect(Object.keys(CONFIG_VALUES).filter((n) => JSON.stringify(declared[n]) === JSON.stringify(dflt[n]))).toEqual([]);
    for (const type of ROLE_TYPES) {
      const d = finishRole({}, type);
      const r = desiredRoleFields('declared', declaredRole(type));
      expect({ type, same: appliesTo(type).filter((n) => n !== 'type' && JSON.stringify(r[n]) === JSON.stringify(d[n])) }).toEqual({ type, same: [] });
    }
  });

  describe('against real OpenBao', () => {
    let dev: OpenBaoDev;
    let dir: string;
    let client: VaultClient;
    let api: CloudAuthApi;
    const saved = { ...process.env };
    const manifest = () => join(dir, 'keyward.manifest.json');

    beforeAll(async () => {
      const t = realServerTools();
      process.stdout.write(
        `real OpenBao ${t.baoVersion}; GCP auth plugin ${t.plugin.module}@${t.plugin.version}${t.plugin.fallback ? ' (FALLBACK: HashiCorp v0.19.1 in place of OpenBao fork)' : ''}\n`,
      );
      dev = await startOpenBaoDev();
      dir = mkdtempSync(join(tmpdir(), 'keyward-roundtrip-'));
      Object.assign(process.env, { VAULT_ADDR: dev.url, VAULT_TOKEN: dev.token, KW_CREDS: CREDS });
      delete process.env.KEYWARD_DIALECT;
      writeFileSync(
        manifest(),
        JSON.stringify({
          version: 1,
          fingerprintSalt: 'roundtrip-salt-0123456789',
          server: { dialect: 'vault' },
          authBackends: [
            {
              path: 'cloud',
              type: 'cloud',
              ...MOUNT_VALUES,
              config: { ...CONFIG_VALUES, credentials: { secretRef: { env: 'KW_CREDS' } } },
              roles: ROLE_TYPES.map((type) => ({ name: `r-${type}`, ...declaredRole(type) })),
            },
          ],
        }),
      );
      client = new VaultClient({ address: dev.url, token: dev.token, dialect: 'vault' });
      api = new CloudAuthApi(client, 'cloud');
    }, 60_000);
    afterAll(async () => {
      await client?.close();
      await dev?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
      process.env = saved;
    });

    it('keyward apply writes every field; the second plan is empty (no perpetual diff against the real read shapes)', async () => {
      const a = await runKeyward('apply', '--auto-approve', '--manifest', manifest());
      expect({ code: a.code, out: a.code === 0 ? '' : a.all.slice(-3000) }).toEqual({ code: 0, out: '' });
      const p = await runKeyward('plan', '--manifest', manifest(), '--detailed-exitcode');
      expect({ code: p.code, out: p.code === 0 ? '' : p.all.slice(-3000) }).toEqual({ code: 0, out: '' });
      expect(a.all + p.all).not.toContain(JSON.parse(CREDS).private_key.split('\n')[3]);
    });

    it.each(Object.keys(MOUNT_VALUES))('mount %s reads back as declared', async (name) => {
      const m = (await client.sys.listAuthMounts()).get('cloud')!;
      const live = mountFields(m.type, { ...(m.config ?? {}), description: m.description, local: m.local });
      expect({ [name]: live[name] }).toEqual({ [name]: mountFields('cloud', MOUNT_VALUES)[name] });
    });

    it.each(Object.keys(CONFIG_VALUES))('config %s reads back as declared', async (name) => {
      const live = liveConfigFields((await api.readConfig())!);
      expect({ [name]: live[name] }).toEqual({ [name]: desiredConfigFields('declared', CONFIG_VALUES)[name] });
    });

    it('config credentials: the server holds the declared key (by its identity; the key itself is never read)', async () => {
      const read = (await api.readConfig())!;
      const key = JSON.parse(CREDS) as { private_key_id: string; client_email: string };
      expect({ id: read.private_key_id, email: read.client_email, secret: 'private_key' in read || 'credentials' in read }).toEqual({
        id: key.private_key_id,
        email: key.client_email,
        secret: false,
      });
    });

    it.each(Object.entries(CONFIG_EXCLUDED).filter(([, e]) => e.refusedBy))('config %s: excluded because the real server refuses it', async (name, e) => {
      // The exclusion stays honest: the day OpenBao accepts the field, this fails and the field joins the round trip.
      const r = await baoRequest(dev.url, 'POST', 'auth/cloud/config', { token: dev.token, body: e.refusedBy });
      expect({ name, refused: r.status >= 400, why: e.why }).toEqual({ name, refused: true, why: e.why });
    });

    const roleCases = ROLE_TYPES.flatMap((type) => appliesTo(type).map((name) => [type, name] as const));
    it.each(roleCases)('%s role: %s reads back as declared', async (type, name) => {
      const live = liveRoleFields((await api.readRole(`r-${type}`))!);
      expect({ [name]: live[name] }).toEqual({ [name]: desiredRoleFields('declared', declaredRole(type))[name] });
    });
  });
  // The same declaration through the provider and real Terraform: the provider's state meets the real read shapes.
  describe('through Terraform against real OpenBao', () => {
    let dev: OpenBaoDev;
    let client: VaultClient;
    let api: CloudAuthApi;
    const tfEnv: Record<string, string> = { KW_CREDS: CREDS };
    const tf = terraformPath(tfEnv);
    // Maps (custom_endpoint, bound_labels) render as HCL object constructors, which accept JSON's `:`.
    const stack = {
      path: 'cloud',
      config: { credentialsEnv: 'KW_CREDS', fields: CONFIG_VALUES as Record<string, Scalar> },
      roles: Object.fromEntries(ROLE_TYPES.map((type) => [`r-${type}`, declaredRole(type) as Record<string, Scalar>])),
    };
    beforeAll(async () => {
      dev = await startOpenBaoDev();
      await tf.init();
      await tf.reset(dev.url);
      tfEnv.VAULT_TOKEN = dev.token;
      client = new VaultClient({ address: dev.url, token: dev.token, dialect: 'vault' });
      api = new CloudAuthApi(client, 'cloud');
    }, 120_000);
    afterAll(async () => {
      tf.close();
      await client?.close();
      await dev?.close();
    });

    it('terraform apply writes every field; the next plan is empty', async () => {
      const a = await tf.apply(stack);
      expect({ code: a.code, out: a.code === 0 ? '' : a.out.slice(-3000) }).toEqual({ code: 0, out: '' });
      const p = await tf.plan(stack);
      expect({ code: p.code, changes: p.changes, out: p.code === 0 && !p.changes ? '' : p.out.slice(-3000) }).toEqual({ code: 0, changes: false, out: '' });
    }, 120_000);

    it('every config and role field reads back as declared', async () => {
      const config = liveConfigFields((await api.readConfig())!);
      const wantConfig = desiredConfigFields('declared', CONFIG_VALUES);
      expect(Object.fromEntries(Object.keys(CONFIG_VALUES).map((n) => [n, config[n]]))).toEqual(Object.fromEntries(Object.keys(CONFIG_VALUES).map((n) => [n, wantConfig[n]])));
      for (const type of ROLE_TYPES) {
        const live = liveRoleFields((await api.readRole(`r-${type}`))!);
        expect({ type, fields: live }).toEqual({ type, fields: desiredRoleFields('declared', declaredRole(type)) });
      }
    });
  });
});
