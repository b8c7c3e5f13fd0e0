// The database files readable by their owner only (0600), also in a data directory that already
// existed or files an older keyward made 0644: they hold every sealed value and the token index.
// SQLite creates the -wal and -shm files with the database file's mode, so making that file first
// with 0600 covers them from the start; existing ones are tightened too.

import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';

export function ownerOnlyDatabaseFiles(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
}
