// The one X.509 certificate writer: a self-signed v3 certificate for a node:crypto key pair, its DER
// written by asn1js and signed by node:crypto. Used by the Terraform provider's automatic mTLS
// (an ECDSA P-256 server certificate per start) and by the cloud emulator's key documents (RSA,
// which map key ids to PEM certificates as Google's do). A full X.509 library (@peculiar/x509 and
// its dependency injection) took about a fifth of a provider start to load; asn1js alone does not.

import { sign, type KeyObject } from 'node:crypto';
import * as asn1 from 'asn1js';

const OID = {
  sha256WithRsa: '1.2.840.113549.1.1.11',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  organization: '2.5.4.10',
  commonName: '2.5.4.3',
};

export interface CertificateOptions {
  /** Positive, big-endian; DER keeps a leading zero byte where the top bit is set. */
  serial: Uint8Array;
  /** Subject and issuer (self-signed): O (when given), then CN. */
  organization?: string;
  commonName: string;
  notBefore: Date;
  notAfter: Date;
  /** DER-encoded extensions (see `extension`); none: a certificate without the [3] field. */
  extensions?: asn1.AsnType[];
}

export interface Certificate {
  der: Buffer;
  pem: string;
}

const der = (v: asn1.AsnType): ArrayBuffer => v.toBER(false);
export const oid = (value: string): asn1.ObjectIdentifier => new asn1.ObjectIdentifier({ value });
const explicit = (tagNumber: number, value: asn1.AsnType[]) => new asn1.Constructed({ idBlock: { tagClass: 3, tagNumber }, value });

/** An Extension (RFC 5280 4.1): its id, critical when set, and the value's DER in an OCTET STRING. */
export const extension = (id: string, critical: boolean, value: asn1.AsnType): asn1.Sequence =>
  new asn1.Sequence({ value: [oid(id), ...(critical ? [new asn1.Boolean({ value: true })] : []), new asn1.OctetString({ valueHex: der(value) })] });

const rdn = (type: string, value: string) => new asn1.Set({ value: [new asn1.Sequence({ value: [oid(type), new asn1.Utf8String({ value })] })] });

const name = (o: CertificateOptions) =>
  new asn1.Sequence({ value: [...(o.organization === undefined ? [] : [rdn(OID.organization, o.organization)]), rdn(OID.commonName, o.commonName)] });

/** RFC 5280 4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050, whole seconds. */
const time = (at: Date) => {
  const d = new Date(Math.floor(at.getTime() / 1000) * 1000);
  return d.getUTCFullYear() < 2050 ? new asn1.UTCTime({ valueDate: d }) : new asn1.GeneralizedTime({ valueDate: d });
};

/** The signature algorithm for the key: RSA signs sha256WithRSAEncryption (NULL parameters), EC ecdsa-with-SHA256 (none). */
function algorithmOf(key: KeyObject): asn1.Sequence {
  if (key.asymmetricKeyType === 'rsa') return new asn1.Sequence({ value: [oid(OID.sha256WithRsa), new asn1.Null()] });
  if (key.asymmetricKeyType === 'ec') return new asn1.Sequence({ value: [oid(OID.ecdsaWithSha256)] });
  throw new Error(`x509: no signature algorithm for a ${String(key.asymmetricKeyType)} key`);
}

export function selfSignedCertificate(privateKey: KeyObject, publicKey: KeyObject, o: CertificateOptions): Certificate {
  const algorithm = algorithmOf(privateKey);
  const spki = asn1.fromBER(publicKey.export({ type: 'spki', format: 'der' }));
  if (spki.offset === -1) throw new Error('x509: cannot read the public key');
  const tbs = new asn1.Sequence({
    value: [
      explicit(0, [new asn1.Integer({ value: 2 })]), // v3
      new asn1.Integer({ valueHex: o.serial[0]! & 0x80 ? Uint8Array.from([0, ...o.serial]) : o.serial }),
      algorithm,
      name(o),
      new asn1.Sequence({ value: [time(o.notBefore), time(o.notAfter)] }),
      name(o),
      spki.result,
      ...(o.extensions?.length ? [explicit(3, [new asn1.Sequence({ value: o.extensions })])] : []),
    ],
  });
  // RSA: PKCS#1 v1.5; EC: the DER-encoded ECDSA signature X.509 wants. Both node:crypto's default.
  const signature = sign('sha256', Buffer.from(der(tbs)), privateKey);
  const cert = Buffer.from(der(new asn1.Sequence({ value: [tbs, algorithm, new asn1.BitString({ valueHex: signature })] })));
  return { der: cert, pem: pem('CERTIFICATE', cert) };
}

export function pem(label: string, bytes: Buffer): string {
  return `-----BEGIN ${label}-----\n${bytes
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '')}\n-----END ${label}-----\n`;
}
