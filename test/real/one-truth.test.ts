// Issue 40's rules through the CLI against real OpenBao 2.7 with HashiCorp's GCP plugin (no
// stand-in): a config removed from the stack is no longer managed and the server keeps it; a role
// removed is deleted and the plan states the cost; a declared move (movedFrom) is a sys/remount
// that keeps the roles and carries the revocation warning.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runKeyward } from '../support/keyward-in-process';
import { bao, baoRequest, startOpenBaoDev, type OpenBaoDev } from '../support/openbao';

let s: OpenBaoDev;
let dir: string;
const saved = { ...process.env };
beforeAll(async () => {
  s = await startOpenBaoDev();
  dir = mkdtempSync(join(tmpdir(), 'keyward-real-onetruth-'));
  Object.assign(process.env, { VAULT_ADDR: s.url, VAULT_TOKEN: s.token });
  delete process.env.VAULT_NAMESPACE;
  delete process.env.KEYWARD_DIALECT;
}, 120_000);
afterAll(async () => {
  process.env = saved;
  rmSync(dir, { recursive: true, force: true });
  await s?.close();
});

const web = { name: 'web', type: 'iam', bound_service_accounts: ['web@p.iam.gserviceaccount.com'] };
const api = { name: 'api', type: 'iam', bound_service_accounts: ['api@p.iam.gserviceaccount.com'] };
/** Writes the manifest with this one backend (path cloud unless it says another) and returns its file. */
const manifest = (backend: Record<string, unknown>) => {
  const file = join(dir, 'keyward.manifest.json');
  writeFileSync(
    file,
    JSON.stringify({
      version: 1,
      fingerprintSalt: 'real-onetruth-salt-0123',
      server: { dialect: 'vault', cloudPlugin: s.plugin.name },
      authBackends: [{ path: 'cloud', type: 'cloud', ...backend }],
    }),
  );
  return file;
};
const ok = (r: { code: number | null; all: string }) => {
  expect({ code: r.code, out: r.code === 0 || r.code === 2 ? '' : r.all.slice(-3000) }).toEqual({ code: r.code, out: '' });
  return r.all;
};

test('config removed: kept as it is; role removed: deleted with its cost stated', async () => {
  ok(await runKeyward('apply', '--auto-approve', '--manifest', manifest({ config: { iam_alias: 'role_id' }, roles: [web, api] })));
  const m = manifest({ roles: [web] });
  const plan = ok(await runKeyward('plan', '--manifest', m));
  expect(plan).toMatch(/auth\/cloud\/role\/api: deleting the role: Every token issued through it stops renewing/);
  const json = JSON.parse((await runKeyward('plan', '--manifest', m, '--format', 'json')).out) as { objects: { id: string; action: string; reason?: string }[] };
  expect(json.objects.find((o) => o.id === 'auth/cloud/config')).toMatchObject({ action: 'no-op', reason: expect.stringMatching(/no longer managed, the server keeps it/) });
  ok(await runKeyward('apply', '--auto-approve', '--manifest', m));
  expect((await bao<{ data: { iam_alias: string } }>(s.url, 'GET', 'auth/cloud/config', { token: s.token })).data.iam_alias).toBe('role_id');
  expect((await baoRequest(s.url, 'GET', 'auth/cloud/role/api', { token: s.token })).status).toBe(404);
  expect(await runKeyward('plan', '--manifest', m, '--detailed-exitcode')).toMatchObject({ code: 0 });
}, 120_000);

test('movedFrom: a sys/remount that keeps the roles, with the revocation warning', async () => {
  const file = manifest({ path: 'cloud2', movedFrom: 'cloud', roles: [web] });
  const plan = ok(await runKeyward('plan', '--manifest', file));
  expect(plan).toMatch(/moving auth\/cloud to auth\/cloud2 \(sys\/remount\) revokes every token/);
  ok(await runKeyward('apply', '--auto-approve', '--manifest', file));
  expect((await bao<{ data: { type: string } }>(s.url, 'GET', 'auth/cloud2/role/web', { token: s.token })).data.type).toBe('iam');
  expect((await baoRequest(s.url, 'GET', 'auth/cloud/role/web', { token: s.token })).status).not.toBe(200);
  expect(await runKeyward('plan', '--manifest', file, '--detailed-exitcode')).toMatchObject({ code: 0 });
}, 120_000);
