// Reading a file a user named somewhere (a flag, an environment variable, a config setting): an
// error says which file and where it was named, never a bare ENOENT. The client's CA file and the
// CLI's server config both read through it.

import { readFileSync } from 'node:fs';

const REASONS: Record<string, string> = {
  ENOENT: 'does not exist',
  EACCES: 'cannot be read (permission denied)',
  EISDIR: 'is a directory, not a file',
  ENOTDIR: 'is under something that is not a directory',
};

/** `${from}: ${file} does not exist` and the like, for an fs error code. */
export function namedFileError(from: string, file: string, e: unknown): Error {
  const code = (e as { code?: unknown } | undefined)?.code;
  const reason = typeof code === 'string' && REASONS[code] ? REASONS[code] : `cannot be read (${(e as Error).message})`;
  return new Error(`${from}: ${file} ${reason}`);
}

/** readFileSync, whose error names the file and `from` (the flag or setting that named it). */
export function readNamedFile(file: string, from: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw namedFileError(from, file, e);
  }
}
