// Root credential rotation over loopback against the emulator's IAM key API: rotate-root replaces
// the configured key (the emulator lists the new key, not the old), logins keep working across it,
// a rotation that fails halfway leaves a working key and says so, and automated rotation by period
// and by cron schedule runs on the injected clock unless disable_automated_rotation.

import { ManualClock } from '../../../src/engine/clock';
import type { CloudEmulator } from '../../../src/cloud-emulator';
import { api, startTestEngine } from '../../support/engine';
import { SA, audience, login, mountCloudAuth, startCloudFixture, writeRoles } from '../../support/cloud-fixture';
import { until } from '../../support/poll';

type Engine = Awaited<ReturnType<typeof startTestEngine>>;

describe('cloud auth root rotation', () => {
  let clock: ManualClock;
  let engine: Engine;
  let emu: CloudEmulator;
  let n = 0;

  const keyId = async (mount: string) => (await api(engine, 'GET', `auth/${mount}/config`)).body.data.private_key_id as string;
  const iamLogin = (mount: string) => login(engine, 'iam-app', emu.mintServiceAccountJwt({ account: SA.app.email, audience: audience('iam-app') }), mount);
  const freshMount = async (extra: Record<string, unknown> = {}) => {
    const mount = `rot${++n}`;
    await mountCloudAuth(engine, emu, mount, extra);
    await writeRoles(engine, { 'iam-app': { type: 'iam', bound_service_accounts: [SA.app.email] } }, mount);
    return mount;
  };
  const deletes = () => emu.records.keyEvents.filter((e) => e.action === 'delete').length;

  beforeEach(async () => {
    // A fresh clock and emulator per test: each rotation deletes the account's previous key.
    clock = new ManualClock(Date.UTC(2026, 0, 1));
    emu = await startCloudFixture({ clock });
    engine = await startTestEngine({ clock });
  });
  afterEach(async () => {
    await engine?.close();
    await emu?.close();
  });

  it('replaces the key: the emulator lists the new key, not the old, and logins keep working', async () => {
    const mount = await freshMount();
    const before = await keyId(mount);
    expect(emu.listKeyIds(SA.keyward.email)).toEqual([before]);
    expect((await iamLogin(mount)).status).toBe(200);

    const r = await api(engine, 'POST', `auth/${mount}/config/rotate-root`, { body: {} });
    expect(r.status).toBe(200);
    const after = r.body.data.private_key_id;
    expect(after).not.toBe(before);
    expect(await keyId(mount)).toBe(after);
    expect(emu.listKeyIds(SA.keyward.email)).toEqual([after]);
    expect(emu.records.keyEvents.map((e) => [e.action, e.kid])).toEqual([
      ['create', after],
      ['delete', before],
    ]);
    expect((await iamLogin(mount)).status).toBe(200);
    // The old key no longer works at the provider.
    const tokenWithOld = await fetch(`${emu.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion: emu.mintServiceAccountJwt({ account: SA.keyward.email, audience: `${emu.url}/token` }),
      }),
    });
    expect(tokenWithOld.status).toBe(400);
  });

  it('says so when a rotation fails halfway, and always leaves a working key', async () => {
    const mount = await freshMount();
    const first = await keyId(mount);

    emu.failRoute('iam-keys-create', 503);
    const noCreate = await api(engine, 'POST', `auth/${mount}/config/rotate-root`, { body: {} });
    expect(noCreate.status).toBe(500);
    expect(noCreate.body.errors[0]).toMatch(new RegExp(`failed to create new key: .*503.*the current key "${first}" is unchanged and still in use`));
    expect(await keyId(mount)).toBe(first);
    expect((await iamLogin(mount)).status).toBe(200);
    emu.failRoute('iam-keys-create', null);

    emu.failRoute('iam-keys-delete', 503);
    const noDelete = await api(engine, 'POST', `auth/${mount}/config/rotate-root`, { body: {} });
    expect(noDelete.status).toBe(500);
    const second = await keyId(mount);
    expect(second).not.toBe(first);
    expect(noDelete.body.errors[0]).toBe(
      `failed to delete old service account key ("${first}") - the new service account key ("${second}") is active, but the old one still exists: DELETE ${emu.url}/v1/projects/keyward-ops/serviceAccounts/${encodeURIComponent(SA.keyward.email)}/keys/${first}: 503 iam-keys-delete is unavailable (emulated outage)`,
    );
    expect(noDelete.text).not.toMatch(/PRIVATE KEY/);
    expect((await iamLogin(mount)).status).toBe(200);
    expect(emu.listKeyIds(SA.keyward.email).sort()).toEqual([first, second].sort());
  });

  it('refuses rotate-root without a configured key', async () => {
    expect((await api(engine, 'POST', 'sys/auth/nokey', { body: { type: 'cloud' } })).status).toBeLessThan(300);
    const r = await api(engine, 'POST', 'auth/nokey/config/rotate-root', { body: {} });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatch(/configuration does not have credentials/);
  });

  it('rotates automatically by rotation_period on the injected clock, and pauses with disable_automated_rotation', async () => {
    const mount = await freshMount({ rotation_period: '1h' });
    const first = await keyId(mount);
    await clock.advance(3599_000);
    expect(deletes()).toBe(0);
    await clock.advance(1_000);
    await until('the first automated rotation', () => deletes() === 1);
    const second = await keyId(mount);
    expect(second).not.toBe(first);
    expect(emu.listKeyIds(SA.keyward.email)).toEqual([second]);
    expect((await iamLogin(mount)).status).toBe(200);

    await clock.advance(3600_000);
    await until('the second automated rotation', () => deletes() === 2);

    expect((await api(engine, 'POST', `auth/${mount}/config`, { body: { disable_automated_rotation: true } })).status).toBe(204);
    const paused = await keyId(mount);
    await clock.advance(3 * 3600_000);
    await new Promise((r) => setTimeout(r, 100));
    expect(deletes()).toBe(2);
    expect(await keyId(mount)).toBe(paused);

    // Resuming counts the period from the last rotation: it is long overdue, so it runs at once.
    expect((await api(engine, 'POST', `auth/${mount}/config`, { body: { disable_automated_rotation: false } })).status).toBe(204);
    await clock.advance(0);
    await until('the rotation after resuming', () => deletes() === 3);
  });

  it('catches up on a scheduled rotation missed while the engine was down, within rotation_window only', async () => {
    const dataDir = engine.dataDir;
    const inWindow = await freshMount({ rotation_schedule: '0 3 * * *', rotation_window: '2h' });
    // Its own account: rotating the first mount deletes the key it was configured with.
    const noWindow = await freshMount({ rotation_schedule: '0 3 * * *', credentials: JSON.stringify(emu.keyFile(SA.app.email)) });
    const before = { inWindow: await keyId(inWindow), noWindow: await keyId(noWindow) };
    await engine.close();
    await clock.set(Date.UTC(2026, 0, 1, 3, 30));
    engine = await startTestEngine({ clock, dataDir });
    await clock.advance(0);
    await until('the missed rotation', async () => (await keyId(inWindow)) !== before.inWindow);
    expect(await keyId(noWindow)).toBe(before.noWindow);
    // Both mounts now wait for tomorrow's 03:00.
    await clock.set(Date.UTC(2026, 0, 2, 3, 0));
    await until("the next day's rotation", async () => (await keyId(noWindow)) !== before.noWindow);
  });

  it('rotates on a cron schedule, and retries a failed attempt within rotation_window', async () => {
    // 2026-01-01T00:00Z now: the next 03:00 is three hours away.
    const mount = await freshMount({ rotation_schedule: '0 3 * * *', rotation_window: '1h' });
    const first = await keyId(mount);
    emu.failRoute('iam-keys-create', 503);
    await clock.advance(3 * 3600_000);
    await until('the scheduled attempt', () => (emu.counts['iam-keys-create'] ?? 0) >= 1);
    expect(await keyId(mount)).toBe(first);
    emu.failRoute('iam-keys-create', null);
    await clock.advance(60_000);
    await until('the retried rotation', () => deletes() === 1);
    expect(await keyId(mount)).not.toBe(first);
    expect(emu.records.keyEvents[0].at).toBe(Date.UTC(2026, 0, 1, 3, 1));
  });
});
