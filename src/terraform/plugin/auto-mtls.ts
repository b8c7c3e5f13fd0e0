// go-plugin's automatic mutual TLS: the host passes its client certificate in PLUGIN_CLIENT_CERT; the
// plugin makes a fresh self-signed server certificate (ECDSA P-256, SAN localhost, as go-plugin's own
// generateCert does), trusts only the host's certificate, and announces its own in the handshake line.
// node:crypto makes the key and the signature; asn1js writes the DER. Every provider start makes a
// certificate, and Terraform starts the provider several times per command: a full X.509 library
// (@peculiar/x509 and its dependency injection) took about a fifth of a start to load.
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import * as asn1 from 'asn1js';

export interface ServerCertificate {
  certPem: string;
  keyPem: string;
  /** DER, base64 without padding (Go's RawStdEncoding), for the handshake line. */
  handshakeCert: string;
}

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  organization: '2.5.4.10',
  commonName: '2.5.4.3',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
};

const der = (v: asn1.AsnType): ArrayBuffer => v.toBER(false);
const oid = (value: string) => new asn1.ObjectIdentifier({ value });
const explicit = (tagNumber: number, value: asn1.AsnType[]) => new asn1.Constructed({ idBlock: { tagClass: 3, tagNumber }, value });

/** The subject and issuer: O=HashiCorp, CN=localhost (as go-plugin). */
const name = () =>
  new asn1.Sequence({
    value: [
      new asn1.Set({ value: [new asn1.Sequence({ value: [oid(OID.organization), new asn1.Utf8String({ value: 'HashiCorp' })] })] }),
      new asn1.Set({ value: [new asn1.Sequence({ value: [oid(OID.commonName), new asn1.Utf8String({ value: 'localhost' })] })] }),
    ],
  });

/** RFC 5280 4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050, whole seconds. */
const time = (ms: number) => {
  const d = new Date(Math.floor(ms / 1000) * 1000);
  return d.getUTCFullYear() < 2050 ? new asn1.UTCTime({ valueDate: d }) : new asn1.GeneralizedTime({ valueDate: d });
};

const extension = (id: string, critical: boolean, value: asn1.AsnType) =>
  new asn1.Sequence({ value: [oid(id), ...(critical ? [new asn1.Boolean({ value: true })] : []), new asn1.OctetString({ valueHex: der(value) })] });

export async function generateServerCertificate(now: Date = new Date()): Promise<ServerCertificate> {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const serial = randomBytes(16);
  serial[0]! &= 0x7f; // a positive serial number
  serial[0]! |= 0x01; // and no leading zero byte, so DER keeps all 16 bytes
  const algorithm = new asn1.Sequence({ value: [oid(OID.ecdsaWithSha256)] });
  const spki = asn1.fromBER(publicKey.export({ type: 'spki', format: 'der' }));
  if (spki.offset === -1) throw new Error('auto-mTLS: cannot read the generated public key');
  const tbs = new asn1.Sequence({
    value: [
      explicit(0, [new asn1.Integer({ value: 2 })]), // v3
      new asn1.Integer({ valueHex: serial }),
      algorithm,
      name(),
      new asn1.Sequence({ value: [time(now.getTime() - 30_000), time(now.getTime() + 262_980 * 3_600_000)] }), // ~30 years, as go-plugin
      name(),
      spki.result,
      explicit(3, [
        new asn1.Sequence({
          value: [
            extension(OID.basicConstraints, true, new asn1.Sequence({ value: [new asn1.Boolean({ value: true })] })), // CA, as go-plugin
            // digitalSignature (bit 0), keyEncipherment (bit 2), keyCertSign (bit 5): 0b10100100, 2 unused bits
            extension(OID.keyUsage, true, new asn1.BitString({ valueHex: new Uint8Array([0xa4]), unusedBits: 2 })),
            extension(OID.extKeyUsage, false, new asn1.Sequence({ value: [oid(OID.serverAuth), oid(OID.clientAuth)] })),
            // GeneralName dNSName is [2] IMPLICIT IA5String
            extension(OID.subjectAltName, false, new asn1.Sequence({ value: [new asn1.Primitive({ idBlock: { tagClass: 3, tagNumber: 2 }, valueHex: Buffer.from('localhost', 'ascii') })] })),
          ],
        }),
      ]),
    ],
  });
  const tbsDer = Buffer.from(der(tbs));
  const signature = sign('sha256', tbsDer, privateKey); // DER-encoded ECDSA signature, as X.509 wants
  const cert = Buffer.from(der(new asn1.Sequence({ value: [tbs, algorithm, new asn1.BitString({ valueHex: signature })] })));
  return {
    certPem: pem('CERTIFICATE', cert),
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    handshakeCert: cert.toString('base64').replace(/=+$/, ''),
  };
}

function pem(label: string, bytes: Buffer): string {
  return `-----BEGIN ${label}-----\n${bytes.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END ${label}-----\n`;
}
