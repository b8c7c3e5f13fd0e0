// A cloud config writer cannot turn the engine into a signing oracle (issue 32): the engine-only
// endpoint overrides (sts, iamcredentials) need sudo, identity_token_ttl may not exceed the identity
// key's verification_ttl, rotation_period has Vault's 10 s minimum, and a namespace's identity key
// goes with the namespace.

import { api, startTestEngine, startTestEngineWithStore } from '../../support/engine';
import type { JsonStore } from '../../../src/engine/storage/json-store';

const SA_EMAIL = 'federated@ops-x.iam.gserviceaccount.com';
const AUDIENCE = 'https://iam.googleapis.com/projects/4242/locations/global/workloadIdentityPools/pool-x/providers/prov-x';

let engine: Awaited<ReturnType<typeof startTestEngine>>;
let store: JsonStore;
let writer: string;
let sudoWriter: string;

beforeAll(async () => {
  ({ engine, store } = await startTestEngineWithStore());
  expect((await api(engine, 'POST', 'sys/auth/wif', { body: { type: 'cloud' } })).status).toBeLessThan(300);
  await api(engine, 'PUT', 'sys/policies/acl/config-writer', { body: { policy: 'path "auth/wif/config" { capabilities = ["create", "read", "update"] }' } });
  await api(engine, 'PUT', 'sys/policies/acl/config-sudo', { body: { policy: 'path "auth/wif/config" { capabilities = ["create", "read", "update", "sudo"] }' } });
  writer = (await api(engine, 'POST', 'auth/token/create', { body: { policies: ['config-writer'] } })).body.auth.client_token;
  sudoWriter = (await api(engine, 'POST', 'auth/token/create', { body: { policies: ['config-sudo'] } })).body.auth.client_token;
});
afterAll(() => engine.close());

const write = (token: string, body: unknown) => api(engine, 'POST', 'auth/wif/config', { token, body });

it.each(['sts', 'iamcredentials'])('a config writer without sudo cannot set custom_endpoint.%s', async (key) => {
  const r = await write(writer, { custom_endpoint: { [key]: 'http://127.0.0.1:9/attacker' } });
  expect(r.status).toBe(403);
  expect(r.body.errors[0]).toMatch(new RegExp(`custom_endpoint "${key}" is an engine-only override.*sudo capability on auth/wif/config`));
  expect((await api(engine, 'GET', 'auth/wif/config')).body.data.custom_endpoint).toBeUndefined();
});

it("the same writer may set Vault's endpoint keys and clear the overrides; with sudo it may set them", async () => {
  expect((await write(writer, { custom_endpoint: { api: 'https://api.example' } })).status).toBe(204);
  expect((await write(sudoWriter, { custom_endpoint: { sts: 'https://sts.example' } })).status).toBe(204);
  expect((await api(engine, 'GET', 'auth/wif/config')).body.data.custom_endpoint).toMatchObject({ sts: 'https://sts.example' });
  expect((await write(writer, { custom_endpoint: { sts: '' } })).status).toBe(204);
  expect((await api(engine, 'GET', 'auth/wif/config')).body.data.custom_endpoint.sts).toBeUndefined();
});

it("identity_token_ttl beyond the identity key's verification_ttl (24 h) is refused", async () => {
  const tenYears = await write(writer, { service_account_email: SA_EMAIL, identity_token_audience: AUDIENCE, identity_token_ttl: '87600h' });
  expect(tenYears.status).toBe(400);
  expect(tenYears.body.errors[0]).toMatch(/field "identity_token_ttl" \(315360000 s\) exceeds the identity key's verification_ttl \(86400 s\)/);
  expect((await write(writer, { service_account_email: SA_EMAIL, identity_token_audience: AUDIENCE, identity_token_ttl: '24h' })).status).toBe(204);
  const later = await write(writer, { identity_token_ttl: 86401 });
  expect(later.status).toBe(400);
  expect((await api(engine, 'GET', 'auth/wif/config')).body.data.identity_token_ttl).toBe(86400);
});

it("rotation_period below Vault's 10 s minimum is refused, naming the field", async () => {
  const r = await write(writer, { rotation_period: 1 });
  expect(r.status).toBe(400);
  expect(r.body.errors[0]).toMatch(/field "rotation_period" must be 0 \(off\) or at least 10 seconds, got 1/);
  expect((await write(writer, { rotation_period: '10s' })).status).toBe(204);
  expect((await write(writer, { rotation_period: 0 })).status).toBe(204);
});

it('an unauthenticated JWKS read stores no key; a deleted namespace takes its identity key along', async () => {
  const keys = await api(engine, 'GET', 'identity/oidc/plugins/.well-known/keys', { token: null });
  expect(keys.body).toEqual({ keys: [] });
  expect(await store.list('sys/plugin-identity/')).toEqual([]);
  const id = (await api(engine, 'POST', 'sys/namespaces/tenant')).body.data.id;
  expect((await api(engine, 'POST', 'identity/oidc/key/default/rotate', { namespace: 'tenant', body: {} })).status).toBe(204);
  expect(await store.list('sys/plugin-identity/')).toEqual([id]);
  expect((await api(engine, 'DELETE', 'sys/namespaces/tenant')).status).toBe(204);
  expect(await store.list('sys/plugin-identity/')).toEqual([]);
});
