// FederatedSource: each step's failure is named (signing, exchange, impersonation) without quoting
// a token, and the impersonated access token is reused until shortly before it expires.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FederatedSource } from '../../../src/idp-client/federation';

const clock = {
  t: Date.UTC(2026, 0, 1),
  now() {
    return this.t;
  },
};

describe('FederatedSource', () => {
  let server: Server;
  let base = '';
  let calls: string[] = [];
  let stsStatus = 200;

  beforeAll(async () => {
    server = createServer((req, res) => {
      calls.push(`${req.method} ${req.url}`);
      let body = '';
      req.on('data', (d) => (body += String(d)));
      req.on('end', () => {
        if (req.url === '/v1/token') {
          const f = new URLSearchParams(body);
          if (stsStatus !== 200)
            return void res.writeHead(stsStatus, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_grant', error_description: 'nope' }));
          expect(f.get('audience')).toBe('//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/q');
          expect(f.get('subject_token')).toBe('eyJ.subject.token');
          return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'federated-secret' }));
        }
        expect(req.headers.authorization).toBe('Bearer federated-secret');
        expect(JSON.parse(body)).toEqual({ scope: ['https://www.googleapis.com/auth/cloud-platform'], lifetime: '900s' });
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ accessToken: 'impersonated-secret', expireTime: new Date(clock.now() + 900_000).toISOString() }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));
  beforeEach(() => {
    calls = [];
    stsStatus = 200;
  });

  const source = (subjectToken: () => Promise<string>) =>
    new FederatedSource(
      {
        audience: 'https://iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/q',
        serviceAccountEmail: 'sa@p.iam.gserviceaccount.com',
        ttlSeconds: 900,
        subjectToken,
      },
      { sts: `${base}/v1/token`, iamcredentials: base },
      clock,
      {},
    );

  it('exchanges, impersonates and caches the access token', async () => {
    const s = source(async () => 'eyJ.subject.token');
    expect(await s.accessToken()).toBe('impersonated-secret');
    expect(await s.accessToken()).toBe('impersonated-secret');
    expect(calls).toEqual(['POST /v1/token', 'POST /v1/projects/-/serviceAccounts/sa%40p.iam.gserviceaccount.com:generateAccessToken']);
    clock.t += 900_000;
    await s.accessToken();
    expect(calls).toHaveLength(4);
  });

  it('names the signing step', async () => {
    await expect(source(() => Promise.reject(new Error('no key'))).accessToken()).rejects.toThrow('plugin identity token signing failed: no key');
    expect(calls).toEqual([]);
  });

  it('names the exchange step without quoting the subject token', async () => {
    stsStatus = 400;
    const err = await source(async () => 'eyJ.subject.token')
      .accessToken()
      .catch((e: Error) => e);
    expect(String(err)).toMatch(/token exchange at the Security Token Service failed: POST .*\/v1\/token: 400 invalid_grant: nope/);
    expect(String(err)).not.toContain('eyJ.subject.token');
  });
});
