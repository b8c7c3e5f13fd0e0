// Config and role conformance over HTTP, mirroring the Terraform provider's acceptance cases:
// metadata defaults, alias and metadata validation, partial custom_endpoint updates, token field
// round-trips, labels as a map, other-type fields and type changes refused, edits, list, delete.

import { generateKeyPairSync } from 'node:crypto';
import { api, startTestEngine } from '../../support/engine';
import { IAM_METADATA_DEFAULT, VM_METADATA_DEFAULT } from '../../../src/schema/cloud-config';

describe('cloud auth config and roles', () => {
  let engine: Awaited<ReturnType<typeof startTestEngine>>;
  const cfg = (body: unknown) => api(engine, 'POST', 'auth/cloud/config', { body });
  const read = async () => (await api(engine, 'GET', 'auth/cloud/config')).body.data;
  const role = (name: string, body: unknown) => api(engine, 'POST', `auth/cloud/role/${name}`, { body });
  const getRole = (name: string) => api(engine, 'GET', `auth/cloud/role/${name}`);

  beforeAll(async () => {
    engine = await startTestEngine();
    expect((await api(engine, 'POST', 'sys/auth/cloud', { body: { type: 'cloud' } })).status).toBeLessThan(300);
  });
  afterAll(() => engine?.close());

  describe('config', () => {
    it('reads defaults before any write: 4 iam and 9 vm metadata keys', async () => {
      const d = await read();
      expect(d.iam_metadata).toEqual([...IAM_METADATA_DEFAULT]);
      expect(d.iam_metadata).toHaveLength(4);
      expect(d.vm_metadata).toHaveLength(9);
      expect(d.vm_metadata).toEqual([...VM_METADATA_DEFAULT]);
    });

    it('stores credentials but returns only derived, non-secret fields', async () => {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const key = { type: 'service_account', project_id: 'p1', private_key_id: 'kid1', private_key: pem, client_email: 'a@p1.iam.gserviceaccount.com', client_id: '123' };
      expect((await cfg({ credentials: JSON.stringify(key) })).status).toBe(204);
      const d = await read();
      expect(d).toMatchObject({ client_email: key.client_email, client_id: '123', private_key_id: 'kid1', project_id: 'p1' });
      expect(JSON.stringify(d)).not.toContain('PRIVATE KEY');
      expect(d.private_key).toBeUndefined();
      const bad = await cfg({ credentials: JSON.stringify({ ...key, private_key_id: '' }) });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0]).toMatch(/private_key_id/);
      const notJson = await cfg({ credentials: '{nope' });
      expect(notJson.status).toBe(400);
      expect(notJson.body.errors[0]).toMatch(/failed to read credentials/);
      expect((await cfg({ credentials: '' })).status).toBe(204);
      expect((await read()).client_email).toBeUndefined();
    });

    it('handles metadata lists: explicit subset sorted, empty means none, default restores', async () => {
      await cfg({ iam_metadata: 'role, project_id', vm_metadata: [] });
      let d = await read();
      expect(d.iam_metadata).toEqual(['project_id', 'role']);
      expect(d.vm_metadata).toEqual([]);
      await cfg({ iam_metadata: ['default'], vm_metadata: 'default' });
      d = await read();
      expect(d.iam_metadata).toHaveLength(4);
      expect(d.vm_metadata).toHaveLength(9);
    });

    it('refuses unknown metadata names listing the allowed ones, and default mixed with others', async () => {
      const r = await cfg({ iam_metadata: 'role,zone' });
      expect(r.status).toBe(400);
      expect(r.body.errors[0]).toBe(
        'failed to parse iam metadata: "zone" contains an unavailable field, please select from "project_id, role, service_account_id, service_account_email"',
      );
      const mixed = await cfg({ vm_metadata: 'default,zone' });
      expect(mixed.body.errors[0]).toMatch(/default can't be used in combination with other fields/);
    });

    it('validates alias values, listing the allowed ones', async () => {
      expect((await cfg({ iam_alias: 'unique_id', vm_alias: 'instance_id' })).status).toBe(204);
      expect(await read()).toMatchObject({ iam_alias: 'unique_id', vm_alias: 'instance_id' });
      const r = await cfg({ iam_alias: 'email' });
      expect(r.status).toBe(400);
      expect(r.body.errors[0]).toMatch(/must be one of: role_id, unique_id/);
      const v = await cfg({ vm_alias: 'name' });
      expect(v.body.errors[0]).toMatch(/must be one of: instance_id, role_id/);
      await cfg({ iam_alias: 'role_id', vm_alias: 'role_id' });
    });

    it('merges partial custom_endpoint updates, clears with "", refuses unknown keys and bad URLs', async () => {
      await cfg({ custom_endpoint: { api: 'www.example.com', iam: 'http://127.0.0.1:9000' } });
      expect((await read()).custom_endpoint).toEqual({ api: 'www.example.com', iam: 'http://127.0.0.1:9000' });
      await cfg({ custom_endpoint: { compute: 'https://compute.example.com:8443/compute/beta', api: '' } });
      expect((await read()).custom_endpoint).toEqual({ iam: 'http://127.0.0.1:9000', compute: 'https://compute.example.com:8443/compute/beta' });
      await cfg({ iam_alias: 'role_id' });
      expect((await read()).custom_endpoint).toEqual({ iam: 'http://127.0.0.1:9000', compute: 'https://compute.example.com:8443/compute/beta' });
      const unknown = await cfg({ custom_endpoint: { dns: 'x' } });
      expect(unknown.status).toBe(400);
      expect(unknown.body.errors[0]).toMatch(/invalid custom endpoint type "dns". Available types are: 'api', 'iam', 'crm', 'compute'/);
      const badUrl = await cfg({ custom_endpoint: { crm: 'ftp://x' } });
      expect(badUrl.body.errors[0]).toMatch(/scheme must be http or https/);
      await cfg({ custom_endpoint: { iam: '', compute: '' } });
      expect((await read()).custom_endpoint).toBeUndefined();
    });

    it('refuses unknown fields with 422', async () => {
      const r = await cfg({ credentialz: 'x' });
      expect(r.status).toBe(422);
      expect(r.body.errors[0]).toMatch(/unknown fields: \["credentialz"\]/);
    });
  });

  describe('roles', () => {
    it('round-trips every token field, durations given as strings returned as seconds', async () => {
      const r = await role('Tok', {
        type: 'iam',
        bound_service_accounts: 'b@x, a@x',
        bound_projects: ['p2', 'p1'],
        token_policies: 'Dev,ops',
        token_ttl: '15m',
        token_max_ttl: 7200,
        token_explicit_max_ttl: '3h',
        token_period: '0',
        token_no_default_policy: true,
        token_num_uses: 3,
        token_type: 'service',
        token_bound_cidrs: '10.0.0.0/8, 192.0.2.7',
        max_jwt_exp: '30m',
        allow_vm_inference: false,
      });
      expect(r.status).toBe(200);
      const d = (await getRole('tok')).body.data;
      expect(d).toEqual({
        role_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        type: 'iam',
        add_group_aliases: false,
        bound_service_accounts: ['a@x', 'b@x'],
        bound_projects: ['p1', 'p2'],
        max_jwt_exp: 1800,
        allow_vm_inference: false,
        token_policies: ['Dev', 'ops'],
        token_ttl: 900,
        token_max_ttl: 7200,
        token_explicit_max_ttl: 10800,
        token_period: 0,
        token_num_uses: 3,
        token_no_default_policy: true,
        token_bound_cidrs: ['10.0.0.0/8', '192.0.2.7'],
        token_type: 'service',
      });
    });

    it('fills create defaults and keeps role_id on update (merge)', async () => {
      await role('defaults', { type: 'iam', bound_service_accounts: '*' });
      const a = (await getRole('defaults')).body.data;
      expect(a).toMatchObject({ max_jwt_exp: 900, allow_vm_inference: true, token_type: 'default', token_policies: [], token_ttl: 0 });
      await role('defaults', { token_ttl: 60 });
      const b = (await getRole('defaults')).body.data;
      expect(b.role_id).toBe(a.role_id);
      expect(b.token_ttl).toBe(60);
      expect(b.bound_service_accounts).toEqual(['*']);
    });

    it('folds deprecated aliases into token_* fields', async () => {
      await role('legacy', { type: 'iam', bound_service_accounts: 'a@x', policies: 'B,a', ttl: '1m', max_ttl: '2m', period: 0 });
      const d = (await getRole('legacy')).body.data;
      expect(d).toMatchObject({ token_policies: ['a', 'b'], policies: ['a', 'b'], token_ttl: 60, ttl: 60, token_max_ttl: 120, max_ttl: 120 });
      await role('legacy', { token_policies: 'c' });
      const e = (await getRole('legacy')).body.data;
      expect(e.token_policies).toEqual(['c']);
      expect(e.policies).toBeUndefined();
    });

    it('round-trips vm labels k:v as a map and vm fields', async () => {
      await role('vm1', { type: 'vm', bound_zones: 'us-east1-b', bound_labels: 'env:dev,team:web', bound_instance_groups: 'g1', token_policies: 'prod', token_ttl: '30m' });
      const d = (await getRole('vm1')).body.data;
      expect(d).toMatchObject({ type: 'vm', bound_zones: ['us-east1-b'], bound_labels: { env: 'dev', team: 'web' }, bound_instance_groups: ['g1'], token_ttl: 1800 });
      expect(d.max_jwt_exp).toBeUndefined();
      expect(d.allow_vm_inference).toBeUndefined();
      const bad = await role('vm1', { bound_labels: 'Env:dev' });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0]).toMatch(/invalid labels given: \["Env:dev"\]/);
    });

    it('refuses fields of the other type, naming them', async () => {
      const a = await role('x-iam', { type: 'iam', bound_service_accounts: 'a@x', bound_zones: 'z' });
      expect(a.status).toBe(400);
      expect(a.body.errors[0]).toMatch(/invalid args found for role of type iam: bound_zones/);
      const b = await role('x-vm', { type: 'vm', max_jwt_exp: 60, allow_vm_inference: true });
      expect(b.body.errors[0]).toMatch(/invalid args found for role of type vm: max_jwt_exp,allow_vm_inference/);
    });

    it('requires and freezes the type', async () => {
      expect((await role('untyped', { bound_projects: 'p' })).body.errors[0]).toMatch(/role type cannot be empty/);
      expect((await role('badtype', { type: 'gce' })).body.errors[0]).toMatch(/role type 'gce' is invalid/);
      const r = await role('vm1', { type: 'iam' });
      expect(r.status).toBe(400);
      expect(r.body.errors[0]).toMatch(/role type cannot be changed/);
    });

    it('applies the validation rules', async () => {
      const cases: [unknown, RegExp][] = [
        [{ type: 'iam' }, /at least one service account/],
        [{ type: 'iam', bound_service_accounts: '*,a@x' }, /wildcard/],
        [{ type: 'iam', bound_service_accounts: 'a', max_jwt_exp: '2h' }, /max_jwt_exp cannot be more than 60 minutes/],
        [{ type: 'vm', bound_instance_groups: 'g' }, /region or zone information must be specified/],
        [{ type: 'iam', bound_service_accounts: 'a', token_type: 'default-service' }, /invalid 'token_type' value "default-service"/],
        [{ type: 'iam', bound_service_accounts: 'a', token_ttl: 100, token_max_ttl: 50 }, /'token_ttl' cannot be greater than 'token_max_ttl'/],
        [{ type: 'iam', bound_service_accounts: 'a', token_bound_cidrs: 'nope' }, /token_bound_cidrs/],
        [{ type: 'iam', bound_service_accounts: 'a', token_ttl: '-5' }, /cannot provide negative value/],
        [{ type: 'iam', bound_service_accounts: 'a', token_type: 'batch', token_period: 60 }, /periodic tokens/],
      ];
      for (const [body, re] of cases) {
        const r = await role('invalid', body);
        expect({ status: r.status, error: r.body.errors[0] }).toEqual({ status: 400, error: expect.stringMatching(re) });
      }
      expect((await getRole('invalid')).status).toBe(404);
      const unknown = await role('invalid', { type: 'iam', bound_service_accounts: 'a', bound_cidrs: 'x' });
      expect(unknown.status).toBe(422);
    });

    it('edits service accounts (iam only) and labels (vm only)', async () => {
      await role('edit-iam', { type: 'iam', bound_service_accounts: 'a@x' });
      expect((await api(engine, 'POST', 'auth/cloud/role/EDIT-IAM/service-accounts', { body: { add: 'c@x,b@x', remove: ['a@x'] } })).status).toBe(200);
      expect((await getRole('edit-iam')).body.data.bound_service_accounts).toEqual(['b@x', 'c@x']);
      const last = await api(engine, 'POST', 'auth/cloud/role/edit-iam/service-accounts', { body: { remove: 'b@x,c@x' } });
      expect(last.body.errors[0]).toMatch(/at least one service account/);
      const wrong = await api(engine, 'POST', 'auth/cloud/role/edit-iam/labels', { body: { add: 'a:b' } });
      expect(wrong.body.errors[0]).toBe("role is type 'iam', cannot edit attribute 'labels' (expected role type: 'vm')");

      await role('edit-vm', { type: 'vm', bound_labels: 'env:dev' });
      expect((await api(engine, 'POST', 'auth/cloud/role/edit-vm/labels', { body: { add: 'team:web,env:prod', remove: 'missing' } })).status).toBe(200);
      expect((await getRole('edit-vm')).body.data.bound_labels).toEqual({ env: 'prod', team: 'web' });
      expect((await api(engine, 'POST', 'auth/cloud/role/edit-vm/labels', { body: { remove: 'env,nope' } })).status).toBe(200);
      expect((await getRole('edit-vm')).body.data.bound_labels).toEqual({ team: 'web' });
      const sa = await api(engine, 'POST', 'auth/cloud/role/edit-vm/service-accounts', { body: { add: 'x' } });
      expect(sa.body.errors[0]).toMatch(/cannot edit attribute 'service_accounts'/);
      expect((await api(engine, 'POST', 'auth/cloud/role/edit-vm/labels', { body: {} })).body.errors[0]).toMatch(/at least one value/);
      expect((await api(engine, 'POST', 'auth/cloud/role/ghost/labels', { body: { add: 'a:b' } })).status).toBe(404);
    });

    it('lists roles under role/ and roles/, deletes with any case', async () => {
      const a = await api(engine, 'LIST', 'auth/cloud/roles');
      const b = await api(engine, 'GET', 'auth/cloud/role?list=true');
      expect(a.body.data.keys).toEqual(b.body.data.keys);
      expect(a.body.data.keys).toEqual([...a.body.data.keys].sort());
      expect(a.body.data.keys).toContain('tok');
      // key_info carries every role as its GET returns it (one request refreshes a mount).
      expect(Object.keys(a.body.data.key_info).sort()).toEqual(a.body.data.keys);
      for (const k of a.body.data.keys) expect(a.body.data.key_info[k]).toEqual((await getRole(k)).body.data);
      expect((await api(engine, 'DELETE', 'auth/cloud/role/TOK')).status).toBe(204);
      expect((await getRole('tok')).status).toBe(404);
      expect((await api(engine, 'DELETE', 'auth/cloud/role/tok')).status).toBe(204);
    });
  });
});
