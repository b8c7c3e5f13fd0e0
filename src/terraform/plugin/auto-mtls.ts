// go-plugin's automatic mutual TLS: the host passes its client certificate in PLUGIN_CLIENT_CERT; the
// plugin makes a fresh self-signed server certificate (ECDSA P-256, SAN localhost, as go-plugin's own
// generateCert does), trusts only the host's certificate, and announces its own in the handshake line.
import 'reflect-metadata'; // @peculiar/x509's dependency injection needs the Reflect metadata API
import { randomBytes, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

export interface ServerCertificate {
  certPem: string;
  keyPem: string;
  /** DER, base64 without padding (Go's RawStdEncoding), for the handshake line. */
  handshakeCert: string;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

export async function generateServerCertificate(now: Date = new Date()): Promise<ServerCertificate> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const serial = randomBytes(16);
  serial[0]! &= 0x7f; // a positive serial number
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial.toString('hex'),
    name: 'CN=localhost, O=HashiCorp',
    notBefore: new Date(now.getTime() - 30_000),
    notAfter: new Date(now.getTime() + 262_980 * 3_600_000), // ~30 years, as go-plugin
    signingAlgorithm: ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.keyCertSign,
        true,
      ),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
      new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'localhost' }]),
    ],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END PRIVATE KEY-----\n`;
  return {
    certPem: cert.toString('pem') + '\n',
    keyPem,
    handshakeCert: Buffer.from(cert.rawData).toString('base64').replace(/=+$/, ''),
  };
}
