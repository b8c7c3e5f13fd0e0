// Health first (issue 42): an attempt against a sealed managed server is skipped before anything is
// read (recorded in the status with its reason, counted as a failed attempt so staleness and alerts
// see it); a 307 for the snapshot path (a standby always redirects it) is followed once to the node
// it names, never from https to http.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../src/engine/clock';
import { startSnapshotAgent, type SnapshotAgent } from '../../../src/snapshot-agent/agent';
import { api } from '../../support/engine';
import { forwardingFront, type ForwardingFront } from '../../support/forwarding-front';
import { writeLoopbackCert } from '../../support/loopback-cert';
import { CONTRACT_TOKEN, startVaultContract, type VaultContract } from '../../support/vault-contract/server';

const T0 = Date.UTC(2026, 0, 1);
let bao: VaultContract;
let dir: string;
let clock: ManualClock;
const closers: (() => Promise<void>)[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kw-agent-health-'));
  clock = new ManualClock(T0);
  bao = await startVaultContract({ flavor: 'openbao' });
});
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  await bao.close();
  rmSync(dir, { recursive: true, force: true });
});

async function agentOn(server: string, env: Record<string, string> = {}): Promise<SnapshotAgent> {
  const a = await startSnapshotAgent({ server, listen: '127.0.0.1:0', state: join(dir, 'state'), env: { VAULT_TOKEN: CONTRACT_TOKEN, ...env }, clock });
  closers.push(() => a.close());
  const body = { storage_type: 'local', interval: 60, retain: 5, path_prefix: join(dir, 'snaps'), file_prefix: 'bao', local_max_space: 100_000_000 };
  expect((await api(a.url, 'POST', 'sys/storage/raft/snapshot-auto/config/c', { token: CONTRACT_TOKEN, body })).status).toBe(204);
  return a;
}
const snaps = () => (existsSync(join(dir, 'snaps')) ? readdirSync(join(dir, 'snaps'), { withFileTypes: true }) : []).filter((e) => /^bao-\d+\.snap$/.test(e.name)).length;
const interval = async (a: SnapshotAgent) => {
  await clock.advance(60_000);
  await a.scheduler.settled();
};

test('a sealed managed server: the attempt is skipped with its reason, nothing is read, and the next one after unsealing succeeds', async () => {
  const a = await agentOn(bao.url);
  bao.community.sealed = true;
  await interval(a);
  const s = a.scheduler.status('c')!;
  expect(s.last_snapshot_error).toBe(`attempt skipped: ${bao.url} reports sealed (sys/health)`);
  expect(s.consecutive_errors).toBe(1);
  expect(a.archivesRead()).toBe(0);
  bao.community.sealed = false;
  await interval(a);
  expect(a.scheduler.status('c')).toMatchObject({ consecutive_errors: 0, last_snapshot_error: '' });
  expect(snaps()).toBe(1);
});

/** A node in front of the contract server that answers the snapshot path with a 307 to `to`. */
const redirecting = (to: string) =>
  forwardingFront(bao.url, (req, res) => {
    if (!req.url?.startsWith('/v1/sys/storage/raft/snapshot')) return false;
    res.writeHead(307, { location: `${to}${req.url}` }).end();
    return true;
  });

test("a standby's 307 for the snapshot path is followed to the node it names", async () => {
  const front: ForwardingFront = await redirecting(bao.url);
  closers.push(() => front.close());
  const a = await agentOn(front.url);
  await interval(a);
  expect(a.scheduler.status('c')).toMatchObject({ consecutive_errors: 0, last_snapshot_error: '' });
  expect(snaps()).toBe(1);
});

test('a 307 from https to http is not followed (the token would cross in the clear)', async () => {
  const cert = writeLoopbackCert(dir);
  const t = new URL(bao.url);
  const https = createHttpsServer({ key: readFileSync(cert.keyFile), cert: readFileSync(cert.certFile) }, (req, res) => {
    if (req.url?.startsWith('/v1/sys/storage/raft/snapshot')) return void res.writeHead(307, { location: `${bao.url}${req.url}` }).end();
    const up = httpRequest({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => https.listen(0, '127.0.0.1', r));
  closers.push(
    () =>
      new Promise<void>((r) => {
        https.closeAllConnections();
        https.close(() => r());
      }),
  );
  const a = await agentOn(`https://127.0.0.1:${(https.address() as AddressInfo).port}`, { VAULT_CACERT: cert.certFile });
  await interval(a);
  const s = a.scheduler.status('c')!;
  expect(s.consecutive_errors).toBe(1);
  expect(s.last_snapshot_error).toMatch(
    /GET sys\/storage\/raft\/snapshot answered 307 to http:\/\/127\.0\.0\.1:\d+\/v1\/sys\/storage\/raft\/snapshot: refused, a redirect from https to http would send the token in the clear/,
  );
  expect(snaps()).toBe(0);
});
