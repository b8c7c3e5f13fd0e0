// rotate-root races (issue 32): config writes, rotation and disable of one mount run one at a
// time, so a write during a rotation is kept (merged into the rotated config), a switch to keyless
// during a rotation leaves a config the write rules accept, and a mount disabled during a rotation
// leaves no key in storage. The emulator's IAM key creation is held open by a loopback proxy.

import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import type { CloudEmulator } from '../../../src/cloud-emulator';
import type { JsonStore } from '../../../src/engine/storage/json-store';
import { api, startTestEngine, startTestEngineWithStore } from '../../support/engine';
import { SA, emulatorEndpoints, startCloudFixture } from '../../support/cloud-fixture';

type Engine = Awaited<ReturnType<typeof startTestEngine>>;

let emu: CloudEmulator;
let engine: Engine;
let store: JsonStore;
let proxy: Server;
let proxyUrl: string;
/** Key creations waiting at the proxy, released by open(). */
let held: (() => void)[] = [];
let gateOpen = true;

function open(): void {
  gateOpen = true;
  held.splice(0).forEach((release) => release());
}

async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

// A fresh emulator and engine per test: a rotation deletes the account's only key.
beforeEach(async () => {
  emu = await startCloudFixture();
  // The root view of the engine's (decrypted) store, to look for keys left behind.
  ({ engine, store } = await startTestEngineWithStore());
  // A TCP relay to the emulator that, while the gate is closed, holds what a connection sends
  // when it starts a key creation (POST .../keys), and lets it through on open().
  const upstream = new URL(emu.url);
  held = [];
  proxy = createServer((client) => {
    const server = connect(Number(upstream.port), upstream.hostname);
    server.on('error', () => client.destroy());
    client.on('error', () => server.destroy());
    server.pipe(client);
    client.on('data', (chunk: Buffer) => {
      if (!gateOpen && /^POST \S+\/keys HTTP/.test(chunk.toString('latin1'))) {
        client.pause();
        held.push(() => {
          server.write(chunk);
          client.resume();
        });
        return;
      }
      server.write(chunk);
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterEach(async () => {
  open();
  await engine?.close();
  await new Promise((r) => proxy?.close(r));
  await emu?.close();
});

let n = 0;
async function mount(): Promise<string> {
  const m = `race${++n}`;
  expect((await api(engine, 'POST', `sys/auth/${m}`, { body: { type: 'cloud' } })).status).toBeLessThan(300);
  const cfg = await api(engine, 'POST', `auth/${m}/config`, {
    body: { credentials: JSON.stringify(emu.keyFile(SA.keyward.email)), custom_endpoint: { ...emulatorEndpoints(emu), iam: proxyUrl } },
  });
  expect(cfg.status).toBe(204);
  return m;
}

/** Starts a rotation and waits until its key creation is held at the proxy (wrapped: an async function would wait for the promise it returns). */
async function rotationInFlight(m: string): Promise<{ rotation: ReturnType<typeof api> }> {
  gateOpen = false;
  const rotation = api(engine, 'POST', `auth/${m}/config/rotate-root`, { body: {} });
  let early: string | undefined;
  void rotation.then((r) => (early = `${r.status} ${r.text}`));
  await until(() => held.length === 1 || early !== undefined, 'the key creation to reach the proxy');
  if (early !== undefined) throw new Error(`the rotation ended before reaching the provider: ${early}`);
  return { rotation };
}

const config = async (m: string) => (await api(engine, 'GET', `auth/${m}/config`)).body.data;

it('a credentials write during a rotation is kept, not overwritten by the rotated key', async () => {
  const m = await mount();
  const { rotation } = await rotationInFlight(m);
  const adminKey = emu.keyFile(SA.other.email);
  const write = api(engine, 'POST', `auth/${m}/config`, { body: { credentials: JSON.stringify(adminKey) } });
  await new Promise((r) => setTimeout(r, 100));
  open();
  const [rot, w] = await Promise.all([rotation, write]);
  expect(rot.status).toBe(200);
  expect(w.status).toBe(204);
  // The write came after the rotation and is what the mount uses now.
  expect((await config(m)).private_key_id).toBe(adminKey.private_key_id);
  expect((await config(m)).client_email).toBe(SA.other.email);
});

it('a switch to keyless during a rotation leaves a valid keyless config', async () => {
  const m = await mount();
  const { rotation } = await rotationInFlight(m);
  const write = api(engine, 'POST', `auth/${m}/config`, {
    body: { credentials: '', service_account_email: SA.app.email, identity_token_audience: '//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/x' },
  });
  await new Promise((r) => setTimeout(r, 100));
  open();
  const [rot, w] = await Promise.all([rotation, write]);
  expect(rot.status).toBe(200);
  expect(w.status).toBe(204);
  const c = await config(m);
  expect(c.private_key_id).toBeUndefined();
  expect(c.service_account_email).toBe(SA.app.email);
  // A config the write rules accept: a later write of any field still passes them.
  expect((await api(engine, 'POST', `auth/${m}/config`, { body: { identity_token_ttl: 600 } })).status).toBe(204);
});

it('a mount disabled during a rotation leaves no key in storage', async () => {
  const m = await mount();
  const { rotation } = await rotationInFlight(m);
  const disable = api(engine, 'DELETE', `sys/auth/${m}`);
  await new Promise((r) => setTimeout(r, 100));
  open();
  const [rot, d] = await Promise.all([rotation, disable]);
  expect(rot.status).toBe(200);
  expect(d.status).toBe(204);
  await new Promise((r) => setTimeout(r, 100));
  const mountsConfigs = (await store.list('ns/')).filter((k) => /\/auth\/[^/]+\/config$/.test(k));
  expect(mountsConfigs).toEqual([]);
});

it('a write and a disable queued behind a rotation: each answered, nothing left in storage', async () => {
  const m = await mount();
  const { rotation } = await rotationInFlight(m);
  const write = api(engine, 'POST', `auth/${m}/config`, { body: { credentials: JSON.stringify(emu.keyFile(SA.other.email)) } });
  await new Promise((r) => setTimeout(r, 50));
  const disable = api(engine, 'DELETE', `sys/auth/${m}`);
  await new Promise((r) => setTimeout(r, 50));
  open();
  const [rot, w, d] = await Promise.all([rotation, write, disable]);
  expect(rot.status).toBe(200);
  // Kept until the disable removed it, or refused with an error: never a silent 5xx.
  expect([204, 400]).toContain(w.status);
  expect(d.status).toBe(204);
  expect((await store.list('ns/')).filter((k) => /\/auth\/[^/]+\//.test(k))).toEqual([]);
});
