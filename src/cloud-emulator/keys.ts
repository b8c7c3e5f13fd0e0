// Key material of an emulated cloud: the provider's OAuth2 signing keys (instance identity tokens)
// and, per service account, user-managed keys (self-signed JWTs, key files) plus one
// provider-managed key (signJwt). Generated at start; nothing is written to disk.

import { generateKeyPair, randomBytes, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { selfSignedCertificate } from './x509';
import type { Description } from './description';

const generate = promisify(generateKeyPair);

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  certPem: string;
}

export interface AccountKeys {
  user: SigningKey[];
  system: SigningKey;
}

export interface EmulatorKeys {
  oauth2: SigningKey[];
  accounts: Map<string, AccountKeys>;
}

async function newKey(commonName: string, notBefore: Date): Promise<SigningKey> {
  const { privateKey, publicKey } = await generate('rsa', { modulusLength: 2048 });
  const kid = randomBytes(20).toString('hex');
  const certPem = selfSignedCertificate(privateKey, publicKey, { commonName, serial: randomBytes(8), notBefore, days: 3650 });
  return { kid, privateKey, publicKey, certPem };
}

/** Generates every key the description needs (2 OAuth2 keys, like Google's rotating pair). */
export async function generateKeys(d: Description, notBefore = new Date(Date.UTC(2020, 0, 1))): Promise<EmulatorKeys> {
  const oauth2 = await Promise.all([newKey('oauth2', notBefore), newKey('oauth2', notBefore)]);
  const accounts = new Map<string, AccountKeys>();
  await Promise.all(
    d.serviceAccounts.map(async (sa) => {
      const [system, ...user] = await Promise.all(Array.from({ length: sa.keys + 1 }, () => newKey(sa.email, notBefore)));
      accounts.set(sa.email, { system, user });
    }),
  );
  return { oauth2, accounts };
}

/** A service-account key file (the JSON `credentials` holds) for a user-managed key. */
export function keyFile(
  sa: { email: string; uniqueId: string; project: string },
  key: SigningKey,
  tokenUri: string,
): Record<string, string> {
  return {
    type: 'service_account',
    project_id: sa.project,
    private_key_id: key.kid,
    private_key: key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: sa.email,
    client_id: sa.uniqueId,
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: tokenUri,
  };
}
