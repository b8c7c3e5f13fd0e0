// go-plugin's automatic mutual TLS: the host passes its client certificate in PLUGIN_CLIENT_CERT; the
// plugin makes a fresh self-signed server certificate (ECDSA P-256, SAN localhost, as go-plugin's own
// generateCert does), trusts only the host's certificate, and announces its own in the handshake line.
// The certificate comes from the one X.509 writer (src/x509/self-signed.ts, asn1js: a full X.509
// library took about a fifth of a provider start to load, and every start makes a certificate).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import * as asn1 from 'asn1js';
import { extension, oid, selfSignedCertificate } from '../../x509/self-signed';

export interface ServerCertificate {
  certPem: string;
  keyPem: string;
  /** DER, base64 without padding (Go's RawStdEncoding), for the handshake line. */
  handshakeCert: string;
}

const OID = {
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
};

/** go-plugin's extensions: a CA (it is its own trust root), server and client auth, SAN localhost. */
const EXTENSIONS = () => [
  extension(OID.basicConstraints, true, new asn1.Sequence({ value: [new asn1.Boolean({ value: true })] })),
  // digitalSignature (bit 0), keyEncipherment (bit 2), keyCertSign (bit 5): 0b10100100, 2 unused bits
  extension(OID.keyUsage, true, new asn1.BitString({ valueHex: new Uint8Array([0xa4]), unusedBits: 2 })),
  extension(OID.extKeyUsage, false, new asn1.Sequence({ value: [oid(OID.serverAuth), oid(OID.clientAuth)] })),
  // GeneralName dNSName is [2] IMPLICIT IA5String
  extension(OID.subjectAltName, false, new asn1.Sequence({ value: [new asn1.Primitive({ idBlock: { tagClass: 3, tagNumber: 2 }, valueHex: Buffer.from('localhost', 'ascii') })] })),
];

export async function generateServerCertificate(now: Date = new Date()): Promise<ServerCertificate> {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const serial = randomBytes(16);
  serial[0]! &= 0x7f; // a positive serial number
  serial[0]! |= 0x01; // and no leading zero byte, so DER keeps all 16 bytes
  const cert = selfSignedCertificate(privateKey, publicKey, {
    serial,
    organization: 'HashiCorp', // O=HashiCorp, CN=localhost, as go-plugin
    commonName: 'localhost',
    notBefore: new Date(now.getTime() - 30_000),
    notAfter: new Date(now.getTime() + 262_980 * 3_600_000), // ~30 years, as go-plugin
    extensions: EXTENSIONS(),
  });
  return {
    certPem: cert.pem,
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    handshakeCert: cert.der.toString('base64').replace(/=+$/, ''),
  };
}
