// Key material of an emulated cloud: the provider's OAuth2 signing keys (instance identity tokens)
// and, per service account, user-managed keys (self-signed JWTs, key files) plus one
// provider-managed key (signJwt). Generated at start, or kept in a key directory so identities (and
// key files handed out) stay the same across restarts.

import { createPrivateKey, createPublicKey, generateKeyPair, randomBytes, type KeyObject } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { selfSignedCertificate } from '../x509/self-signed';
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

export async function newKey(commonName: string, notBefore: Date): Promise<SigningKey> {
  const { privateKey, publicKey } = await generate('rsa', { modulusLength: 2048 });
  const kid = randomBytes(20).toString('hex');
  const notAfter = new Date(notBefore.getTime() + 3650 * 86_400_000);
  const certPem = selfSignedCertificate(privateKey, publicKey, { commonName, serial: randomBytes(8), notBefore, notAfter }).pem;
  return { kid, privateKey, publicKey, certPem };
}

/** Loads the key stored for a slot, or generates and stores it (atomically, mode 0600). */
async function storedKey(dir: string | undefined, slot: string, commonName: string, notBefore: Date): Promise<SigningKey> {
  if (!dir) return newKey(commonName, notBefore);
  const file = join(dir, `${slot.replace(/[^\w.@-]/g, '_')}.json`);
  try {
    const saved = JSON.parse(await readFile(file, 'utf8')) as { kid: string; privateKey: string; certPem: string };
    const privateKey = createPrivateKey(saved.privateKey);
    return { kid: saved.kid, privateKey, publicKey: createPublicKey(privateKey), certPem: saved.certPem };
  } catch {
    const key = await newKey(commonName, notBefore);
    const body = JSON.stringify({ kid: key.kid, privateKey: key.privateKey.export({ type: 'pkcs8', format: 'pem' }), certPem: key.certPem });
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(tmp, body, { mode: 0o600 });
    await rename(tmp, file);
    return key;
  }
}

/**
 * Every key the description needs (2 OAuth2 keys, like Google's rotating pair). With keyDir, keys
 * are reused from (and saved to) that directory.
 */
export async function generateKeys(d: Description, keyDir?: string, notBefore = new Date(Date.UTC(2020, 0, 1))): Promise<EmulatorKeys> {
  const oauth2 = await Promise.all([0, 1].map((i) => storedKey(keyDir, `oauth2-${i}`, 'oauth2', notBefore)));
  const accounts = new Map<string, AccountKeys>();
  await Promise.all(
    d.serviceAccounts.map(async (sa) => {
      const [system, ...user] = await Promise.all(
        Array.from({ length: sa.keys + 1 }, (_, i) => storedKey(keyDir, i === 0 ? `${sa.email}-system` : `${sa.email}-user-${i - 1}`, sa.email, notBefore)),
      );
      accounts.set(sa.email, { system, user });
    }),
  );
  return { oauth2, accounts };
}

/** The JSON of a service-account key file. */
export interface ServiceAccountKeyFile {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  auth_uri: string;
  token_uri: string;
}

/** A service-account key file (the JSON `credentials` holds) for a user-managed key. */
export function keyFile(sa: { email: string; uniqueId: string; project: string }, key: SigningKey, tokenUri: string): ServiceAccountKeyFile {
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
