// The self-signed server certificate of go-plugin's auto-mTLS, read back by node's X.509 parser
// and by OpenSSL through a real TLS handshake (the certificate is both the server's and its CA).

import { X509Certificate, createPrivateKey } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import * as tls from 'node:tls';
import { generateServerCertificate } from '../../../src/terraform/plugin/auto-mtls';

it('is a P-256 self-signed CA certificate for localhost, valid from now for about 30 years', async () => {
  const now = new Date('2030-01-02T03:04:05Z'); // whole seconds: the certificate keeps no more
  const c = await generateServerCertificate(now);
  const x = new X509Certificate(c.certPem);
  expect(x.verify(x.publicKey)).toBe(true);
  expect(x.ca).toBe(true);
  expect(x.checkHost('localhost')).toBe('localhost');
  expect(x.subject.split('\n').sort()).toEqual(['CN=localhost', 'O=HashiCorp']);
  expect(x.issuer).toBe(x.subject);
  expect(x.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
  expect(new Date(x.validFrom).getTime()).toBe(now.getTime() - 30_000);
  // After 2049 the time is a GeneralizedTime (RFC 5280) in whole seconds; node reads either.
  expect(new Date(x.validTo).getTime()).toBe(now.getTime() + 262_980 * 3_600_000);
  expect(x.serialNumber).toMatch(/^[0-7][0-9A-F]{31}$/);
  expect(createPrivateKey(c.keyPem).asymmetricKeyType).toBe('ec');
  expect(Buffer.from(c.handshakeCert, 'base64').equals(x.raw)).toBe(true);
  expect(c.handshakeCert).not.toContain('=');
});

it('serves and authenticates a mutual TLS connection (host and plugin certificates alike)', async () => {
  const server = await generateServerCertificate();
  const host = await generateServerCertificate();
  const srv = tls.createServer({ key: server.keyPem, cert: server.certPem, ca: host.certPem, requestCert: true, rejectUnauthorized: true }, (s) => s.end('ok'));
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  try {
    const { port } = srv.address() as AddressInfo;
    const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', key: host.keyPem, cert: host.certPem, ca: server.certPem });
    let got = '';
    socket.on('data', (d: Buffer) => (got += d.toString()));
    await once(socket, 'end');
    expect(socket.authorized).toBe(true);
    expect(got).toBe('ok');
    socket.destroy();
  } finally {
    srv.close();
  }
});
