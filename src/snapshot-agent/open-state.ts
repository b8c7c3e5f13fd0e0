// --state LOCATION -> the store: a directory path (or file:// URL). Object-store prefixes
// (s3://, gs://, azblob://) are recognised and refused with a clear message until implemented.

import { fileURLToPath } from 'node:url';
import { DirectoryState } from './dir-state';
import type { StateStore } from './state-store';

export async function openState(location: string): Promise<StateStore> {
  if (location.trim() === '') throw new Error('--state must name a directory');
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(location)?.[1]?.toLowerCase();
  if (scheme === undefined) return new DirectoryState(location).open();
  if (scheme === 'file') return new DirectoryState(fileURLToPath(location)).open();
  if (['s3', 'gs', 'azblob'].includes(scheme)) {
    throw new Error(`--state ${scheme}://… (an object-store prefix) is not supported by this keyward version yet: use a directory (shared between agents over a filesystem with atomic link/rename)`);
  }
  throw new Error(`--state: unknown scheme ${scheme}:// (use a directory path)`);
}
