// Issue 40's acceptance rows against real OpenBao 2.7 with the real GCP plugin, through every front end a
// Terraform user has: real `terraform` on HCL (the e2e's terraformPath), `keyward show` of Terraform's saved plan,
// and the PR plan (`keyward plan --dir`, Terraform's state as the record), each as text and as JSON. For each row a
// stack is applied, then changed; every front end's action per object must be the row's, and must be what the real
// server shows after `terraform apply` (read back with the server's own API, not through keyward). The same rows
// run against the contract server in test/e2e/one-decision.test.ts ("defect 40"); the CLI's own rows against real
// OpenBao are in test/real/one-truth.test.ts.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { serviceAccountKey } from '../integration/reconcile/helpers';
import { runKeyward } from '../support/keyward-in-process';
import { bao, baoRequest, startOpenBaoDev, type OpenBaoDev } from '../support/openbao';
import { CONTRACT_TOKEN } from '../support/vault-contract/server';
import { terraformPath } from '../e2e/scenarios/paths';
import type { Stack } from '../e2e/scenarios/stack';
import { reviewedFrom } from '../../src/reconcile/review-digest';

type Json = Record<string, unknown>;
type Actions = Record<string, string>;

const ROLE_WEB = { type: 'iam', bound_service_accounts: ['web@p.iam.gserviceaccount.com'], token_ttl: '1h' };
const ROLE_API = { type: 'iam', bound_service_accounts: ['api@p.iam.gserviceaccount.com'] };
const BASE: Stack = { path: 'cloud', config: { credentialsEnv: 'KW_CREDS', fields: { vm_alias: 'instance_id' } }, roles: { web: ROLE_WEB } };

let s: OpenBaoDev;
let p: ReturnType<typeof terraformPath>;
const saved = { ...process.env };
beforeAll(async () => {
  s = await startOpenBaoDev({ token: CONTRACT_TOKEN });
  // KEYWARD_CLOUD_PLUGIN: the catalog name the harness registered the plugin under, for the provider (Terraform's
  // environment) and the PR plan (this process, which the driver also gives `env`).
  const env = { KW_CREDS: serviceAccountKey('declared-1'), KEYWARD_CLOUD_PLUGIN: s.plugin.name };
  p = terraformPath(env);
  Object.assign(process.env, env, { VAULT_ADDR: s.url, VAULT_TOKEN: CONTRACT_TOKEN });
  delete process.env.VAULT_NAMESPACE;
  delete process.env.KEYWARD_DIALECT;
  await p.init();
}, 120_000);
afterAll(async () => {
  process.env = saved;
  p?.close();
  await s?.close();
});

const get = async (path: string): Promise<Json | undefined> => {
  const r = await baoRequest<{ data?: Json }>(s.url, 'GET', path, { token: s.token });
  if (r.status === 404) return undefined;
  if (r.status >= 300) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
};

/** A server object as keyward names it, with what identifies it on the server: its mount's accessor and the rest of its path. */
interface Held {
  accessor: string;
  rest: string;
  body: Json;
}

/** Every auth mount (its sys/auth entry), its config and its roles, read through OpenBao's own API. */
async function held(): Promise<Map<string, Held>> {
  const out = new Map<string, Held>();
  const mounts = await bao<{ data: Record<string, Json & { accessor: string }> }>(s.url, 'GET', 'sys/auth', { token: s.token });
  for (const [slashed, entry] of Object.entries(mounts.data)) {
    if (slashed === 'token/') continue;
    const mount = slashed.replace(/\/$/, '');
    const { accessor } = entry;
    out.set(`auth/${mount}`, { accessor, rest: '', body: entry });
    out.set(`auth/${mount}/config`, { accessor, rest: '/config', body: (await get(`auth/${mount}/config`)) ?? {} });
    const list = await baoRequest<{ data?: { keys?: string[] } }>(s.url, 'LIST', `auth/${mount}/roles`, { token: s.token });
    for (const name of list.body.data?.keys ?? []) {
      out.set(`auth/${mount}/role/${name}`, { accessor, rest: `/role/${name}`, body: (await get(`auth/${mount}/role/${name}`))! });
    }
  }
  return out;
}

/**
 * The action per object the server shows between two reads, in the plans' words. An object is the same object when
 * its mount's accessor and the rest of its path are (a sys/remount keeps the accessor; a delete and create does
 * not): a mount found at another path was moved (update); a role with another role_id, or an object whose mount was
 * disabled and enabled again at the same path (another accessor), was replaced.
 */
function shown(before: Map<string, Held>, after: Map<string, Held>): Actions {
  const key = (h: Held) => `${h.accessor}${h.rest}`;
  const earlier = new Map([...before].map(([id, h]) => [key(h), { id, h }]));
  const later = new Set([...after.values()].map(key));
  const out: Actions = {};
  for (const [id, h] of after) {
    const was = earlier.get(key(h));
    if (!was) out[id] = 'create';
    else if (h.rest === '' && was.id !== id) out[id] = 'update';
    else if (h.rest.startsWith('/role/') && was.h.body.role_id !== h.body.role_id) out[id] = 'replace';
    else out[id] = isDeepStrictEqual(was.h.body, h.body) ? 'no-op' : 'update';
  }
  // Gone, and something new at the same path: deleted and created again, a replace.
  for (const [k, { id }] of earlier) if (!later.has(k)) out[id] = out[id] === 'create' ? 'replace' : 'delete';
  return out;
}

const VERB: Record<string, string> = { 'will be created': 'create', 'will be updated in place': 'update', 'will be deleted': 'delete', 'must be replaced': 'replace' };
/** A text plan's action per object: the changed objects' lines, the unchanged ones as the "N objects unchanged." count. */
function textActions(text: string): { changed: Actions; unchanged: number } {
  const changed: Actions = {};
  for (const m of text.matchAll(/^ {2}(?:\+|~|-|-\/\+) (\S+) (will be created|will be updated in place|will be deleted|must be replaced)/gm)) changed[m[1]] = VERB[m[2]];
  const n = /^(\d+) objects? unchanged\.$/m.exec(text);
  const none = /^No changes\. The server matches the desired state \((\d+) objects? checked\)/m.exec(text);
  return { changed, unchanged: Number(n?.[1] ?? none?.[1] ?? 0) };
}

interface JsonPlan {
  objects: { id: string; action: string; reason?: string; warnings?: string[] }[];
}
const jsonOf = (r: { out: string; all: string }, what: string): JsonPlan => {
  const text = r.out || r.all;
  try {
    return JSON.parse(text.slice(text.indexOf('{'))) as JsonPlan;
  } catch {
    throw new Error(`${what} is not a JSON plan:\n${r.all.slice(-3000)}`);
  }
};
const actionsOf = (plan: JsonPlan): Actions => Object.fromEntries(plan.objects.map((o) => [o.id, o.action]));

interface FrontEnds {
  /** Terraform's own action for each resource of its saved plan. */
  terraform: Record<string, string[]>;
  json: Record<'keyward show' | 'PR plan', JsonPlan>;
  text: Record<'keyward show' | 'PR plan', string>;
}

/**
 * The change to `v2` through every front end, nothing applied: the driver's `actions` (terraform plan -out, keyward
 * show of it, the PR plan from the state; JSON) with its digest check, then each plan again as text and JSON from
 * the files it left, so the text and JSON of each agree and the two digests are checked here, not only by the driver.
 */
async function frontEnds(v2: Stack, expected: Actions): Promise<FrontEnds> {
  const seen = await p.actions(v2);
  expect(seen).toEqual({ 'keyward show': expected, 'PR plan': expected });
  const tfplan = JSON.parse(readFileSync(join(p.dir, 'tfplan.json'), 'utf8')) as { resource_changes: { address: string; change: { actions: string[] } }[] };
  const terraform = Object.fromEntries(tfplan.resource_changes.map((c) => [c.address, c.change.actions]));
  const show = (format: string) => runKeyward('show', join(p.dir, 'tfplan.json'), '--format', format);
  const pr = (format: string) => runKeyward('plan', '--dir', join(p.dir, 'cdktf.out'), '--format', format);
  const [showJson, prJson, showText, prText] = [await show('json'), await pr('json'), await show('text'), await pr('text')];
  for (const [what, r] of Object.entries({ showJson, prJson, showText, prText }))
    expect({ what, code: r.code, out: r.code === 0 ? '' : r.all.slice(-3000) }).toEqual({ what, code: 0, out: '' });
  const digests = [showJson, prJson].map((r) => reviewedFrom(r.out.slice(r.out.indexOf('{')))?.digest);
  expect(digests[0]).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(digests[1]).toBe(digests[0]);
  const json = { 'keyward show': jsonOf(showJson, 'keyward show'), 'PR plan': jsonOf(prJson, 'the PR plan') };
  const text = { 'keyward show': showText.out, 'PR plan': prText.out };
  for (const front of ['keyward show', 'PR plan'] as const) {
    const actions = actionsOf(json[front]);
    expect({ front, json: actions }).toEqual({ front, json: expected });
    const changed = Object.fromEntries(Object.entries(actions).filter(([, a]) => a !== 'no-op'));
    expect({ front, text: textActions(text[front]) }).toEqual({ front, text: { changed, unchanged: Object.keys(actions).length - Object.keys(changed).length } });
  }
  return { terraform, json, text };
}

/**
 * One row: `v1` applied through terraform, then the change to `v2` through every front end, then `terraform apply`
 * of it; the server's own view of what changed must be `expected`, as every front end said.
 */
async function row(v1: Stack, v2: Stack, expected: Actions): Promise<{ fronts: FrontEnds; apply: string; after: Map<string, Held> }> {
  for (const m of Object.keys((await bao<{ data: Json }>(s.url, 'GET', 'sys/auth', { token: s.token })).data))
    if (m !== 'token/') await bao(s.url, 'DELETE', `sys/auth/${m}`, { token: s.token });
  await p.reset(s.url);
  const first = await p.apply(v1);
  expect({ code: first.code, out: first.code === 0 ? '' : first.out.slice(-3000) }).toEqual({ code: 0, out: '' });
  const before = await held();
  const fronts = await frontEnds(v2, expected);
  expect(await held()).toEqual(before);
  const applied = await p.apply(v2);
  expect({ code: applied.code, out: applied.code === 0 ? '' : applied.out.slice(-3000) }).toEqual({ code: 0, out: '' });
  const after = await held();
  expect({ server: shown(before, after) }).toEqual({ server: expected });
  // Applied: Terraform and the PR plan from the new state both plan nothing.
  const again = await p.plan(v2);
  expect({ code: again.code, changes: again.changes, out: again.changes ? again.out.slice(-3000) : '' }).toEqual({ code: 0, changes: false, out: '' });
  const pr = await runKeyward('plan', '--dir', join(p.dir, 'cdktf.out'), '--detailed-exitcode');
  expect({ code: pr.code, out: pr.code === 0 ? '' : pr.all.slice(-3000) }).toEqual({ code: 0, out: '' });
  return { fronts, apply: applied.out, after };
}

const warningsOf = (plan: JsonPlan, id: string) => plan.objects.find((o) => o.id === id)?.warnings ?? [];
const FRONTS = ['keyward show', 'PR plan'] as const;

test('path changed without movedFrom: Terraform moves the mount (sys/remount), and keyward show and the PR plan say a move with its warning', async () => {
  const expected = { 'auth/cloud2': 'update', 'auth/cloud2/config': 'no-op', 'auth/cloud2/role/web': 'no-op' };
  const { fronts, after } = await row(BASE, { ...BASE, path: 'cloud2' }, expected);
  expect(fronts.terraform).toEqual({ 'keyward_cloud_auth_backend.b': ['update'] });
  for (const front of FRONTS) {
    expect({ front, warnings: warningsOf(fronts.json[front], 'auth/cloud2').join('\n') }).toEqual({ front, warnings: expect.stringMatching(/revokes every token/) });
    expect({ front, text: fronts.text[front] }).toEqual({
      front,
      text: expect.stringMatching(/auth\/cloud2: moving auth\/cloud to auth\/cloud2 \(sys\/remount\) revokes every token/),
    });
  }
  expect([...after.keys()].sort()).toEqual(['auth/cloud2', 'auth/cloud2/config', 'auth/cloud2/role/web']);
  expect(after.get('auth/cloud2/config')!.body).toMatchObject({ gce_alias: 'instance_id', private_key_id: 'declared-1' });
}, 120_000);

test('config removed from the stack: no longer managed, the server keeps it (every front end)', async () => {
  const expected = { 'auth/cloud': 'no-op', 'auth/cloud/config': 'no-op', 'auth/cloud/role/web': 'no-op' };
  const { fronts, after } = await row(BASE, { ...BASE, config: undefined }, expected);
  expect(fronts.terraform).toEqual({ 'keyward_cloud_auth_backend.b': ['update'] });
  for (const front of FRONTS) {
    const config = fronts.json[front].objects.find((o) => o.id === 'auth/cloud/config');
    expect({ front, reason: config?.reason }).toEqual({ front, reason: expect.stringMatching(/no longer managed, the server keeps it/) });
    expect({ front, text: fronts.text[front] }).toEqual({ front, text: expect.stringMatching(/^No changes\. The server matches the desired state \(3 objects checked\)\.$/m) });
  }
  expect(after.get('auth/cloud/config')!.body).toMatchObject({ gce_alias: 'instance_id', private_key_id: 'declared-1' });
}, 120_000);

test('a role removed from a RETAIN backend: deleted, with its cost, never "Terraform forgets it" (every front end and the server)', async () => {
  const retained: Stack = { ...BASE, retain: true };
  const expected = { 'auth/cloud': 'no-op', 'auth/cloud/config': 'no-op', 'auth/cloud/role/api': 'delete', 'auth/cloud/role/web': 'no-op' };
  const { fronts, apply, after } = await row({ ...retained, roles: { web: ROLE_WEB, api: ROLE_API } }, retained, expected);
  expect(fronts.terraform).toEqual({ 'keyward_cloud_auth_backend.b': ['update'] });
  for (const front of FRONTS) {
    const api = fronts.json[front].objects.find((o) => o.id === 'auth/cloud/role/api');
    expect({ front, said: JSON.stringify(api) }).toEqual({ front, said: expect.not.stringMatching(/forgets/) });
    expect({ front, warnings: warningsOf(fronts.json[front], 'auth/cloud/role/api').join('\n') }).toEqual({ front, warnings: expect.stringMatching(/stops renewing/) });
    expect({ front, text: fronts.text[front] }).toEqual({
      front,
      text: expect.stringMatching(/auth\/cloud\/role\/api: deleting the role: Every token issued through it stops renewing/),
    });
    expect({ front, text: fronts.text[front] }).toEqual({ front, text: expect.not.stringMatching(/Terraform forgets it/) });
  }
  // Terraform's own plan (printed by the apply) says the same.
  const flat = apply.replace(/[│╷╵]/g, ' ').replace(/\s+/g, ' ');
  expect({ stopsRenewing: /stops renewing/.test(flat), forgets: /Terraform forgets it/.test(flat) }).toEqual({ stopsRenewing: true, forgets: false });
  expect([...after.keys()].filter((id) => id.includes('/role/'))).toEqual(['auth/cloud/role/web']);
  expect((await baoRequest(s.url, 'GET', 'auth/cloud/role/api', { token: s.token })).status).toBe(404);
}, 120_000);

test('a mount replaced (local changes): its config and roles are replaced with it and written again whole (every front end and the server)', async () => {
  const expected = { 'auth/cloud': 'replace', 'auth/cloud/config': 'replace', 'auth/cloud/role/web': 'replace' };
  const { fronts, after } = await row(BASE, { ...BASE, local: true }, expected);
  expect(fronts.terraform).toEqual({ 'keyward_cloud_auth_backend.b': ['delete', 'create'] });
  for (const front of FRONTS)
    expect({ front, warnings: warningsOf(fronts.json[front], 'auth/cloud').join('\n') }).toEqual({
      front,
      warnings: expect.stringMatching(/replacing the mount disables it and enables it again.*"web"/),
    });
  // Written again whole on the new mount: the key, the declared config field and the role's fields.
  expect(after.get('auth/cloud')!.body).toMatchObject({ local: true });
  expect(after.get('auth/cloud/config')!.body).toMatchObject({ gce_alias: 'instance_id', private_key_id: 'declared-1' });
  expect(after.get('auth/cloud/role/web')!.body).toMatchObject({ token_ttl: 3600, bound_service_accounts: ['web@p.iam.gserviceaccount.com'] });
}, 120_000);
