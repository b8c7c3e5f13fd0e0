// The seal key file: 32 random bytes, hex-encoded, mode 0600. Dev mode creates one in the data dir.

import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';

export function readSealKey(file: string): Buffer {
  const text = readFileSync(file, 'utf8').trim();
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new Error(`seal key file ${file} must hold 32 bytes as 64 hex characters or base64`);
  if ((statSync(file).mode & 0o077) !== 0) {
    throw new Error(`seal key file ${file} is readable by group or others; run chmod 600 ${file}`);
  }
  return key;
}

/** Reads the key file, creating it (mode 0600) first when it does not exist. */
export function ensureSealKey(file: string): Buffer {
  if (!existsSync(file)) {
    writeFileSync(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
  }
  return readSealKey(file);
}
