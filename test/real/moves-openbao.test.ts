// Issue 39's findings 2, 4 and 5 against real OpenBao with the real GCP plugin (test/support/openbao.ts), through
// the CLI and through real terraform: an unknown migration id is a bare 404 and a mount move through the real
// sys/remount completes; a vm role with `*` (a literal on the real plugin: no VM matches) is planned by the CLI
// labelled `locks-out` with exit 4 and refused by Terraform's plan, and refused by apply on both paths, nothing
// written; a declared rotation or WIF field is refused at plan naming OpenBao, which itself refuses it (422 / 500).

import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FAIL_ON_EXIT_CODE } from '../../src/reconcile/fail-on';
import { baoRequest, startOpenBaoDev, type OpenBaoDev } from '../support/openbao';
import { CONTRACT_TOKEN } from '../support/vault-contract/server';
import { openPath, type PathDriver } from '../e2e/scenarios/paths';
import type { Stack } from '../e2e/scenarios/stack';

const flat = (s: string) => s.replace(/[│╷╵]/g, ' ').replace(/\s+/g, ' ');
const BASE: Stack = {
  path: 'cloud',
  config: { fields: { vm_alias: 'instance_id' } },
  roles: { web: { type: 'iam', bound_service_accounts: ['web@p.iam.gserviceaccount.com'], token_ttl: '1h' } },
};
const VM_STAR: Stack = { ...BASE, roles: { ...BASE.roles, batch: { type: 'vm', bound_zones: ['europe-west1-b'], bound_service_accounts: ['*'] } } };
const ROTATING: Stack = { ...BASE, config: { fields: { vm_alias: 'instance_id', rotation_period: '24h' } } };
const WIF: Stack = {
  ...BASE,
  config: {
    fields: {
      service_account_email: 'vault@p.iam.gserviceaccount.com',
      identity_token_audience: '//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/v',
    },
  },
};

let s: OpenBaoDev;
beforeAll(async () => {
  s = await startOpenBaoDev({ token: CONTRACT_TOKEN });
}, 60_000);
afterAll(async () => {
  await s?.close();
});

const raw = (method: string, path: string, body?: unknown) => baoRequest(s.url, method, path, { token: s.token, body });
const authMounts = async () => Object.keys(((await raw('GET', 'sys/auth')).body as { data: Record<string, unknown> }).data).sort();
/** Disables every auth mount but token/, so that the next block starts from a server without mounts. */
const disableAuthMounts = async () => {
  for (const m of await authMounts()) if (m !== 'token/') await raw('DELETE', `sys/auth/${m}`);
};

test('the real server: an unknown migration id is a bare 404; a rotation field is a 422, identity_token_audience a 500 (what keyward plans around)', async () => {
  const st = await raw('GET', 'sys/remount/status/00000000-0000-0000-0000-000000000000');
  expect({ status: st.status, body: st.body }).toEqual({ status: 404, body: { errors: [] } });
  await raw('POST', 'sys/auth/probe', { type: s.plugin.name });
  expect((await raw('POST', 'auth/probe/config', { rotation_period: 86400 })).status).toBe(422);
  expect(
    (await raw('POST', 'auth/probe/config', { identity_token_audience: WIF.config!.fields!.identity_token_audience, service_account_email: 'v@p.iam.gserviceaccount.com' })).status,
  ).toBe(500);
  // What makes `*` on a vm role a lock-out: the plugin stores it literally.
  expect((await raw('POST', 'auth/probe/role/vm', { type: 'gce', bound_service_accounts: ['*'] })).status).toBeLessThan(300);
  expect(((await raw('GET', 'auth/probe/role/vm')).body as { data: { bound_service_accounts: string[] } }).data.bound_service_accounts).toEqual(['*']);
  await raw('DELETE', 'sys/auth/probe');
});

describe.each([['cli'], ['terraform']] as const)('through %s against real OpenBao', (which) => {
  let p: PathDriver;
  beforeAll(async () => {
    p = await openPath(which, {});
    await p.reset(s.url);
  }, 120_000);
  afterAll(async () => {
    await disableAuthMounts();
    p?.close();
  });

  it("applies; a vm role with `*` is labelled by the CLI (exit 4), refused by Terraform's plan and by every apply; OpenBao-less config fields are refused at plan (nothing written); moves the mount, plans nothing after", async () => {
    const ok = async (r: Promise<{ code: number | null; out: string }>) => {
      const x = await r;
      expect({ code: x.code, out: x.code === 0 ? '' : x.out.slice(-3000) }).toEqual({ code: 0, out: '' });
      return x;
    };
    const refused = async (st: Stack, re: RegExp) => {
      const r = await p.plan(st);
      expect({ code: r.code === 0 ? 0 : 1, found: re.test(flat(r.out)), out: re.test(flat(r.out)) ? '' : r.out.slice(-3000) }).toEqual({ code: 1, found: true, out: '' });
    };
    await ok(p.apply(BASE));
    const lockout = /on Vault and OpenBao `\*` on a vm role is a literal: no VM matches; list the service accounts/;
    // The CLI's plan is produced for review (labelled) and fails under the built-in rule; Terraform's plan has no labels, so it fails.
    const reviewed = await p.plan(VM_STAR);
    expect({ code: reviewed.code, found: lockout.test(flat(reviewed.out)), out: lockout.test(flat(reviewed.out)) ? '' : reviewed.out.slice(-3000) }).toEqual({
      code: which === 'cli' ? FAIL_ON_EXIT_CODE : 1,
      found: true,
      out: '',
    });
    if (which === 'cli') expect(flat(reviewed.out)).toMatch(/\[locks-out\] bound_service_accounts: .*keyward apply and the Terraform provider refuse to write it/);
    const applied = await p.apply(VM_STAR);
    expect({ code: applied.code, found: lockout.test(flat(applied.out)) }).toEqual({ code: 1, found: true });
    await refused(ROTATING, /OpenBao 2\.\d+\.\d+ has no rotation_period: its GCP auth plugin has no automated root rotation/);
    await refused(WIF, /OpenBao 2\.\d+\.\d+ has no identity_token_audience/);
    expect((await raw('GET', 'auth/cloud/role/batch')).status).toBe(404);

    const moved: Stack = { ...BASE, path: 'moved', movedFrom: 'cloud' };
    await ok(p.apply(moved));
    const mounts = await authMounts();
    expect([mounts.includes('moved/'), mounts.includes('cloud/')]).toEqual([true, false]);
    expect((await raw('GET', 'auth/moved/role/web')).status).toBe(200);
    const again = await p.plan(moved);
    expect({ code: again.code, changes: again.changes }).toEqual({ code: 0, changes: false });
  }, 240_000);
});

/**
 * A node in front of real OpenBao that has not seen the migration (a new leader, a restarted node): every request
 * is forwarded unchanged except a status read, whose id is swapped for one the server never issued, so the real
 * server's own answer for an unknown id comes back.
 */
async function forgetfulNode(target: string): Promise<{ url: string; statusReads: number[]; close(): Promise<void> }> {
  const statusReads: number[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        let path = req.url ?? '/';
        const status = path.startsWith('/v1/sys/remount/status/');
        if (status) path = `/v1/sys/remount/status/${randomUUID()}`;
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
        const body = chunks.length ? Buffer.concat(chunks) : undefined;
        const r = await fetch(`${target}${path}`, { method: req.method, headers, body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body, redirect: 'manual' });
        if (status) statusReads.push(r.status);
        const out: Record<string, string> = {};
        r.headers.forEach((v, k) => {
          if (!['content-length', 'transfer-encoding', 'connection', 'content-encoding'].includes(k)) out[k] = v;
        });
        res.writeHead(r.status, out).end(Buffer.from(await r.arrayBuffer()));
      })().catch((e: Error) => res.writeHead(502).end(e.message));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    statusReads,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

describe.each([['cli'], ['terraform']] as const)('a move whose status the real server does not know (404), through %s', (which) => {
  let p: PathDriver;
  let node: Awaited<ReturnType<typeof forgetfulNode>>;
  beforeAll(async () => {
    node = await forgetfulNode(s.url);
    p = await openPath(which, {});
    await p.reset(node.url);
  }, 120_000);
  afterAll(async () => {
    await disableAuthMounts();
    p?.close();
    await node?.close();
  });

  it('completes from the mount table at once, and the next plan is empty', async () => {
    const first = await p.apply(BASE);
    expect({ code: first.code, out: first.code === 0 ? '' : first.out.slice(-3000) }).toEqual({ code: 0, out: '' });
    const started = Date.now();
    const moved: Stack = { ...BASE, path: 'moved', movedFrom: 'cloud' };
    const r = await p.apply(moved);
    expect({ code: r.code, out: r.code === 0 ? '' : r.out.slice(-3000) }).toEqual({ code: 0, out: '' });
    expect(node.statusReads.length).toBeGreaterThan(0);
    expect([...new Set(node.statusReads)]).toEqual([404]);
    expect(Date.now() - started).toBeLessThan(30_000);
    const mounts = await authMounts();
    expect([mounts.includes('moved/'), mounts.includes('cloud/')]).toEqual([true, false]);
    const again = await p.plan(moved);
    expect({ code: again.code, changes: again.changes }).toEqual({ code: 0, changes: false });
  }, 240_000);
});
