import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { selfSignedCertificate } from '../../../src/x509/self-signed';

describe('selfSignedCertificate', () => {
  it('builds an RSA certificate that verifies with its own key (the cloud emulator key documents)', () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const notBefore = new Date(Date.UTC(2020, 0, 1));
    const { pem } = selfSignedCertificate(privateKey, publicKey, {
      commonName: 'svc@x',
      serial: Buffer.from([0x80, 1]),
      notBefore,
      notAfter: new Date(notBefore.getTime() + 2 * 86_400_000),
    });
    const cert = new X509Certificate(pem);
    expect(cert.subject).toBe('CN=svc@x');
    expect(cert.verify(publicKey)).toBe(true);
    expect(cert.validTo).toMatch(/Jan {2}3 00:00:00 2020/);
    // A serial with its top bit set stays positive: DER gets a leading zero byte.
    expect(cert.serialNumber).toBe('8001');
  });

  it('builds an ECDSA certificate with O and CN and GeneralizedTime after 2049', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const { pem, der } = selfSignedCertificate(privateKey, publicKey, {
      commonName: 'localhost',
      organization: 'HashiCorp',
      serial: Buffer.from([0x01, 0x02]),
      notBefore: new Date(Date.UTC(2026, 0, 1)),
      notAfter: new Date(Date.UTC(2056, 0, 1)),
    });
    const cert = new X509Certificate(pem);
    expect(cert.raw.equals(der)).toBe(true);
    expect(cert.subject.split('\n').sort()).toEqual(['CN=localhost', 'O=HashiCorp']);
    expect(cert.verify(publicKey)).toBe(true);
    expect(new Date(cert.validTo).getUTCFullYear()).toBe(2056);
  });
});
