// The provider client against the cloud emulator: endpoints, bounded-lifetime caches driven by a
// manual clock, ambient credentials (key file, metadata server), and request timeouts.

import { createServer, type Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '../../../src/engine/clock';
import type { CloudEmulator } from '../../../src/cloud-emulator';
import { IdpClient } from '../../../src/idp-client/client';
import { DEFAULT_DOC_LIFETIME_MS, IdpError, keyDocLifetimeMs } from '../../../src/idp-client/http';
import { SA, emulatorEndpoints, startCloudFixture } from '../../support/cloud-fixture';

describe('IdpClient', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  let emu: CloudEmulator;
  const dir = mkdtempSync(join(tmpdir(), 'keyward-provider-'));
  const client = (extra: Partial<ConstructorParameters<typeof IdpClient>[0]> = {}) =>
    new IdpClient({ endpoints: emulatorEndpoints(emu), clock, env: {}, credentials: emu.keyFile(SA.keyward.email), ...extra });
  const count = (name: string) => emu.counts[name] ?? 0;

  beforeAll(async () => {
    emu = await startCloudFixture({ clock });
  });
  afterAll(() => emu?.close());

  it('caches key documents within their lifetime and refetches after it', async () => {
    const c = client({ keyCacheMs: 10 * 60_000 });
    const kid = emu.keys.oauth2[0].kid;
    const before = count('certs');
    expect((await c.oauth2Key(kid))?.asymmetricKeyType).toBe('rsa');
    await c.oauth2Key(kid);
    expect(count('certs')).toBe(before + 1);
    await clock.advance(10 * 60_000);
    await c.oauth2Key(kid);
    expect(count('certs')).toBe(before + 2);
  });

  it('refetches a key document for an unknown kid only when the cached copy is older than 30 s', async () => {
    const c = client();
    const before = count('x509');
    expect(await c.serviceAccountKey(SA.app.email, 'missing')).toBeUndefined();
    expect(await c.serviceAccountKey(SA.app.email, 'missing')).toBeUndefined();
    expect(count('x509')).toBe(before + 1);
    await clock.advance(31_000);
    await c.serviceAccountKey(SA.app.email, 'missing');
    expect(count('x509')).toBe(before + 2);
    const kid = emu.keys.accounts.get(SA.app.email)!.user[1].kid;
    expect(await c.serviceAccountKey(SA.app.email, kid)).toBeDefined();
  });

  it('shares one refetch among concurrent lookups of unknown kids', async () => {
    const c = client();
    const kid = emu.keys.oauth2[0].kid;
    await c.oauth2Key(kid);
    await clock.advance(31_000);
    const before = count('certs');
    // Self-signed logins look their kid up in the provider's certs first: a burst of them must not
    // become a burst of provider calls.
    const found = await Promise.all(Array.from({ length: 20 }, (_, i) => c.oauth2Key(`not-there-${i}`)));
    expect(found.every((k) => k === undefined)).toBe(true);
    expect(count('certs')).toBe(before + 1);
    expect(await c.oauth2Key(kid)).toBeDefined();
    expect(count('certs')).toBe(before + 1);
  });

  it('caches lookups for a bounded time and shares concurrent loads', async () => {
    const c = client({ lookupCacheMs: 60_000 });
    const before = count('iam-get');
    const [a, b] = await Promise.all([c.getServiceAccount(SA.app.email), c.getServiceAccount(SA.app.email)]);
    expect(a).toEqual({ email: SA.app.email, uniqueId: SA.app.uniqueId, projectId: 'proj-a', disabled: false });
    expect(b).toBe(a);
    expect(count('iam-get')).toBe(before + 1);
    await clock.advance(60_000);
    await c.getServiceAccount(SA.app.email);
    expect(count('iam-get')).toBe(before + 2);
  });

  it('asks the provider on every lookup by default (no reuse across logins)', async () => {
    const c = client();
    const before = count('iam-get');
    const [a, b] = await Promise.all([c.getServiceAccount(SA.app.email), c.getServiceAccount(SA.app.email)]);
    expect(a).toEqual(b);
    await c.getServiceAccount(SA.app.email);
    expect(count('iam-get')).toBe(before + 3);
    const inst = count('instance-get');
    await c.getInstance('proj-a', 'us-east1-b', 'web-1');
    await c.getInstance('proj-a', 'us-east1-b', 'web-1');
    expect(count('instance-get')).toBe(inst + 2);
  });

  it('keeps key documents as their headers allow: no-store refetches, no header 60 s, never beyond 10 minutes', async () => {
    const kid = emu.keys.oauth2[0].kid;
    try {
      emu.setKeyDocCacheControl('certs', 'no-cache, no-store, max-age=0, must-revalidate');
      const c1 = client();
      let before = count('certs');
      await c1.oauth2Key(kid);
      await c1.oauth2Key(kid);
      expect(count('certs')).toBe(before + 2);

      emu.setKeyDocCacheControl('certs', null);
      const c2 = client();
      before = count('certs');
      await c2.oauth2Key(kid);
      await clock.advance(DEFAULT_DOC_LIFETIME_MS - 1);
      await c2.oauth2Key(kid);
      expect(count('certs')).toBe(before + 1);
      await clock.advance(1);
      await c2.oauth2Key(kid);
      expect(count('certs')).toBe(before + 2);

      emu.setKeyDocCacheControl('certs', 'public, max-age=86400');
      const c3 = client({ keyCacheMs: 24 * 3600_000 });
      before = count('certs');
      await c3.oauth2Key(kid);
      await clock.advance(10 * 60_000 - 1);
      await c3.oauth2Key(kid);
      expect(count('certs')).toBe(before + 1);
      await clock.advance(1);
      await c3.oauth2Key(kid);
      expect(count('certs')).toBe(before + 2);
    } finally {
      emu.setKeyDocCacheControl('certs', 'public, max-age=3600');
    }
  });

  it('reads lifetimes from Cache-Control (minus Age) and Expires (against Date)', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(keyDocLifetimeMs({ 'cache-control': 'public, max-age=300' }, now)).toBe(300_000);
    expect(keyDocLifetimeMs({ 'cache-control': 'public, max-age=300', age: '100' }, now)).toBe(200_000);
    expect(keyDocLifetimeMs({ 'cache-control': 'private, no-cache' }, now)).toBe(0);
    expect(keyDocLifetimeMs({ 'cache-control': 'no-store, max-age=300' }, now)).toBe(0);
    expect(keyDocLifetimeMs({ expires: new Date(now + 120_000).toUTCString() }, now)).toBe(120_000);
    expect(keyDocLifetimeMs({ expires: new Date(now + 120_000).toUTCString(), date: new Date(now + 60_000).toUTCString() }, now)).toBe(60_000);
    expect(keyDocLifetimeMs({ expires: '0' }, now)).toBe(0);
    expect(keyDocLifetimeMs({}, now)).toBe(DEFAULT_DOC_LIFETIME_MS);
  });

  it('refuses a provider answer larger than the body limit instead of buffering it', async () => {
    let sent = 0;
    const endless: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!res.destroyed && sent < 64 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
        if (!res.destroyed && sent < 64 * 1024 * 1024) res.once('drain', pump);
        else res.end();
      };
      pump();
    });
    await new Promise<void>((r) => endless.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(endless.address() as AddressInfo).port}`;
    try {
      const c = new IdpClient({ endpoints: { api: url }, clock, env: {} });
      const err = await c.oauth2Key('x').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IdpError);
      expect((err as Error).message).toMatch(/larger than 1048576 bytes/);
      expect(sent).toBeLessThan(64 * 1024 * 1024);
    } finally {
      endless.closeAllConnections();
      endless.close();
    }
  });

  it('reads instances, instance groups (all pages) and ancestry', async () => {
    const c = client();
    const inst = await c.getInstance('proj-a', 'us-east1-b', 'web-1');
    expect(inst).toMatchObject({ id: '5001', zone: 'us-east1-b', status: 'RUNNING', labels: { env: 'prod', team: 'web' } });
    const groups = await c.instanceGroupLocations('proj-a');
    expect(groups.zonal.get('web-group')).toEqual(['us-east1-b']);
    expect(groups.regional.get('web-regional')).toEqual(['us-west1']);
    expect(await c.groupContains('proj-a', { zone: 'us-east1-b' }, 'web-group', inst.selfLink)).toBe(true);
    expect(await c.groupContains('proj-a', { zone: 'us-east1-b' }, 'empty-group', inst.selfLink)).toBe(false);
    expect(await c.ancestry('proj-a')).toEqual([
      { type: 'project', id: 'proj-a' },
      { type: 'folder', id: '201' },
      { type: 'folder', id: '200' },
      { type: 'organization', id: '100' },
    ]);
  });

  it('maps provider errors to IdpError with the status and the provider message', async () => {
    const err = await client()
      .getServiceAccount(SA.deleted.email)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IdpError);
    expect((err as IdpError).status).toBe(404);
    expect((err as IdpError).message).toMatch(/Unknown service account/);
  });

  it('uses the key file named by GOOGLE_APPLICATION_CREDENTIALS when no credentials are configured', async () => {
    const file = join(dir, 'adc.json');
    writeFileSync(file, JSON.stringify(emu.keyFile(SA.keyward.email)));
    const before = count('token');
    const c = client({ credentials: undefined, env: { GOOGLE_APPLICATION_CREDENTIALS: file } });
    await c.getServiceAccount(SA.other.email);
    await c.getInstance('proj-b', 'europe-west1-c', 'batch-1');
    expect(count('token')).toBe(before + 1);
  });

  it('refuses an ambient file that is not a service-account key, without echoing it', async () => {
    const file = join(dir, 'user.json');
    writeFileSync(file, JSON.stringify({ type: 'authorized_user', refresh_token: 'secret-refresh' }));
    const err = (await client({ credentials: undefined, env: { GOOGLE_APPLICATION_CREDENTIALS: file } })
      .getServiceAccount(SA.app.email)
      .catch((e: Error) => e)) as Error;
    expect(err.message).toMatch(/is not a service-account key/);
    expect(err.message).not.toContain('secret-refresh');
  });

  it('falls back to the metadata server (GCE_METADATA_HOST)', async () => {
    const before = count('metadata-token');
    const c = client({ credentials: undefined, env: { GCE_METADATA_HOST: emu.url.replace('http://', '') } });
    expect((await c.getServiceAccount(SA.vm.email)).uniqueId).toBe(SA.vm.uniqueId);
    expect(count('metadata-token')).toBe(before + 1);
  });

  it('gives up on a provider that trickles its answer past the timeout (each chunk inside the idle limit)', async () => {
    // A byte every 60 ms never trips an idle (between-chunk) limit of 200 ms; the whole answer must
    // still end within the request's deadline.
    const trickle: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(' ')), 60);
      res.on('close', () => clearInterval(t));
    });
    await new Promise<void>((r) => trickle.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(trickle.address() as AddressInfo).port}`;
    try {
      const c = new IdpClient({ endpoints: { api: url }, clock, env: {}, timeoutMs: 200 });
      const started = Date.now();
      const err = await c.oauth2Key('x').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IdpError);
      expect((err as Error).message).toMatch(/did not finish within 200 ms/);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      trickle.closeAllConnections();
      trickle.close();
    }
  });

  it('gives up on a provider that does not answer within the timeout', async () => {
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const c = new IdpClient({ endpoints: { api: url }, clock, env: {}, timeoutMs: 200 });
      const err = await c.oauth2Key('x').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IdpError);
      expect((err as Error).message).toMatch(/failed/);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  describe('re-check: hostile provider answers (item 9, other members)', () => {
    async function provider(handler: (res: import('node:http').ServerResponse) => void, run: (url: string) => Promise<void>) {
      const srv: Server = createServer((_req, res) => handler(res));
      await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
      try {
        await run(`http://127.0.0.1:${(srv.address() as AddressInfo).port}`);
      } finally {
        srv.closeAllConnections();
        srv.close();
      }
    }
    const refusedWith = async (url: string, pattern: RegExp, timeoutMs = 2000) => {
      const c = new IdpClient({ endpoints: { api: url, iam: url }, clock, env: {}, timeoutMs });
      const err = await c.oauth2Key('x').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IdpError);
      expect((err as Error).message).toMatch(pattern);
    };

    it('a head flood (oversized headers) is an IdpError, not a hang or a crash', async () => {
      await provider(
        (res) => {
          res.writeHead(200, Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`x-h${i}`, 'a'.repeat(500)])));
          res.end('{}');
        },
        (url) => refusedWith(url, /failed/),
      );
    });

    it('a declared Content-Length beyond the limit is refused before reading', async () => {
      await provider(
        (res) => {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 ** 40) });
          res.write('{"');
        },
        (url) => refusedWith(url, /larger than 1048576 bytes/),
      );
    });

    it('an endless error body (non-2xx) is bounded too', async () => {
      await provider(
        (res) => {
          res.writeHead(500, { 'content-type': 'application/json' });
          const chunk = Buffer.alloc(64 * 1024, 0x20);
          const pump = () => {
            while (!res.destroyed && res.write(chunk));
            if (!res.destroyed) res.once('drain', pump);
          };
          pump();
        },
        (url) => refusedWith(url, /larger than 1048576 bytes/),
      );
    });

    it('a body dripped one byte at a time is cut off by the overall timeout', async () => {
      await provider(
        (res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(' ')), 20);
          res.on('close', () => clearInterval(t));
        },
        async (url) => {
          const started = Date.now();
          await refusedWith(url, /failed|aborted|timeout|did not finish/i, 300);
          expect(Date.now() - started).toBeLessThan(3000);
        },
      );
    });

    it('a malformed max-age counts as already stale (RFC 9111), not as "no header"', () => {
      const now = Date.UTC(2026, 0, 1);
      expect(keyDocLifetimeMs({ 'cache-control': 'max-age=abc' }, now)).toBe(0);
      expect(keyDocLifetimeMs({ 'cache-control': 'max-age=-1' }, now)).toBe(0);
      expect(keyDocLifetimeMs({ 'cache-control': 'max-age=' }, now)).toBe(0);
      expect(keyDocLifetimeMs({ 'cache-control': 'MAX-AGE=120' }, now)).toBe(120_000);
      expect(keyDocLifetimeMs({ 'cache-control': 'public', expires: 'garbage' }, now)).toBe(0);
    });
  });
});
