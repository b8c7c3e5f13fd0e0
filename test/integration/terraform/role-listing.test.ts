// Refreshing many keyward_cloud_auth_role resources in one provider process (one Terraform
// operation) costs one LIST of the mount, not a GET per role, against the real engine; and the
// listing is never a stale read: a new process (the next operation) sees drift and out-of-band
// deletes, a role the process itself writes is read again, a role missing from the listing is
// confirmed absent by its own GET.

import type { Engine } from '../../../src/engine/engine';
import type { ObjectValue } from '../../../src/terraform/plugin/contract';
import { keywardProvider, type KeywardProviderContext } from '../../../src/terraform/keyward-provider';
import { api, ROOT_TOKEN, startTestEngine } from '../../support/engine';
import { TerraformDriver, recordRequests } from '../../support/terraform-driver';

let engine: Engine;
beforeAll(async () => {
  engine = await startTestEngine();
});
afterAll(async () => {
  await engine.close();
});

/** A provider process of its own: one Terraform operation. */
async function operation(token = ROOT_TOKEN) {
  const provider = keywardProvider({ env: { VAULT_ADDR: engine.url, VAULT_TOKEN: token } });
  const d = await TerraformDriver.configure<KeywardProviderContext>(provider, 'keyward_cloud_auth_role', { fingerprint_salt: 'role-listing-salt-0123' });
  const sent = recordRequests(d.ctx.client!);
  return { d, sent, close: () => provider.stop!() };
}

const N = 30;
const roleConfig = (d: TerraformDriver<KeywardProviderContext>, i: number) =>
  d.config({ backend: 'listed', name: `r${i}`, type: 'iam', bound_service_accounts: [`sa-${i}@p.iam.gserviceaccount.com`], token_ttl: '1h' });

test('a refresh of many roles is one LIST; the next operation sees drift and deletes; own writes and absent roles are read', async () => {
  await api(engine, 'POST', 'sys/auth/listed', { body: { type: 'cloud' } });
  const setup = await operation();
  const states: ObjectValue[] = [];
  for (let i = 0; i < N; i++) states.push((await setup.d.deploy(null, roleConfig(setup.d, i))).state!);
  await setup.close();

  // One operation refreshing every role, concurrently as Terraform does.
  const first = await operation();
  const read = await Promise.all(states.map((s) => first.d.read(s)));
  expect(read).toEqual(states);
  const gets = first.sent.filter((s) => /^GET auth\/listed\/role\//.test(s));
  const lists = first.sent.filter((s) => s.includes('?list=true'));
  expect({ gets: gets.length, lists: lists.length }).toEqual({ gets: 8, lists: 1 });
  await first.close();

  // Out of band: drift on r3, r4 deleted. The next operation sees both.
  await api(engine, 'POST', 'auth/listed/role/r3', { body: { token_ttl: 60 } });
  await api(engine, 'DELETE', 'auth/listed/role/r4');
  const next = await operation();
  const again = await Promise.all(states.map((s) => next.d.read(s)));
  expect(again[3]).toMatchObject({ name: 'r3', token_ttl: '60' });
  expect(again[4]).toBeNull();
  expect(again.filter((_, i) => i !== 3 && i !== 4)).toEqual(states.filter((_, i) => i !== 3 && i !== 4));
  // r4 was missing from the listing: its absence was confirmed by a GET of its own.
  expect(next.sent).toContain('GET auth/listed/role/r4');

  // This operation writes r5 (and the server changes it further): its next read is a GET, not the listing.
  next.sent.splice(0);
  const changed = await next.d.deploy(again[5]!, next.d.config({ ...roleConfig(next.d, 5), token_ttl: '2h' }));
  await api(engine, 'POST', 'auth/listed/role/r5', { body: { token_max_ttl: 9000 } });
  next.sent.splice(0);
  expect(await next.d.read(changed.state!)).toMatchObject({ token_ttl: '2h', token_max_ttl: '9000' });
  expect(next.sent).toEqual(['GET auth/listed/role/r5']);
  await next.close();
});

test('a token that may read roles but not list them: one LIST refused, then every refresh reads with a GET', async () => {
  await api(engine, 'POST', 'sys/auth/unlisted', { body: { type: 'cloud' } });
  const setup = await operation();
  const config = (i: number) => setup.d.config({ backend: 'unlisted', name: `r${i}`, type: 'iam', bound_service_accounts: [`sa-${i}@p.iam.gserviceaccount.com`] });
  const states: ObjectValue[] = [];
  for (let i = 0; i < 20; i++) states.push((await setup.d.deploy(null, config(i))).state!);
  await setup.close();
  expect((await api(engine, 'PUT', 'sys/policies/acl/role-reader', { body: { policy: 'path "auth/unlisted/role/*" { capabilities = ["read"] }' } })).status).toBe(204);
  const token = (await api(engine, 'POST', 'auth/token/create', { body: { policies: ['role-reader'] } })).body.auth.client_token as string;

  const op = await operation(token);
  const read: (ObjectValue | null)[] = [];
  for (const s of states) read.push(await op.d.read(s));
  expect(read).toEqual(states);
  const lists = op.sent.filter((s) => s.includes('?list=true'));
  const gets = op.sent.filter((s) => /^GET auth\/unlisted\/role\//.test(s));
  expect({ lists: lists.length, gets: gets.length }).toEqual({ lists: 1, gets: 20 });
  await op.close();
});
