// Roles found valid, remembered across the provider's processes. Terraform starts the provider
// for each walk of a command (validate, plan, apply), and each start validated every role again:
// at 1,000 roles about 0.15 s per walk, three walks per deploy. A role's validity depends only on
// its name and values and on the provider's code, so this file keeps SHA-256 digests of the valid
// roles' manifests, named by the digest of the provider bundle that found them valid (a rebuilt or
// upgraded provider starts an empty file). Only digests are written, never a role's values.
//
// Per user, in the user's cache directory ($XDG_CACHE_HOME/keyward, else ~/.cache/keyward), the
// directory 0700 and the file 0600, never opened through a symlink. Any doubt (another owner,
// group- or world-writable, an oversized or unreadable file, a failed write) and the provider
// validates every role as before: the file only ever saves work.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface RoleValidity {
  /** True when a role with this manifest JSON was found valid by this provider build before. */
  has(manifestJson: string): boolean;
  add(manifestJson: string): void;
  /** Appends what this process added (called at exit). */
  flush(): void;
}

const PREFIX = 'role-validity-';
/** Above this the file is started afresh (about 250,000 roles). */
const MAX_BYTES = 8 * 1024 * 1024;
/** Files of other builds are removed once this old. */
const STALE_MS = 24 * 3600 * 1000;
const DIGEST = /^[0-9a-f]{32}$/;

const digest = (manifestJson: string) => createHash('sha256').update(manifestJson).digest('hex').slice(0, 32);

/** The cache directory, made 0700 if missing; undefined unless it is ours and closed to others. */
function cacheDir(env: NodeJS.ProcessEnv): string | undefined {
  const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  const dir = join(base, 'keyward');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(dir);
  const uid = process.getuid?.();
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0) return undefined;
  return dir;
}

function readDigests(file: string): Set<string> {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return new Set(); // none yet
  }
  try {
    const st = fs.fstatSync(fd);
    const uid = process.getuid?.();
    if (!st.isFile() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0) throw new Error('not ours');
    if (st.size > MAX_BYTES) {
      fs.unlinkSync(file);
      return new Set();
    }
    return new Set(
      fs
        .readFileSync(fd, 'latin1')
        .split('\n')
        .filter((l) => DIGEST.test(l)),
    );
  } finally {
    fs.closeSync(fd);
  }
}

function removeStale(dir: string, keep: string): void {
  const now = Date.now();
  for (const name of fs.readdirSync(dir)) {
    if (!name.startsWith(PREFIX) || name === keep) continue;
    try {
      if (now - fs.lstatSync(join(dir, name)).mtimeMs > STALE_MS) fs.unlinkSync(join(dir, name));
    } catch {
      // another process removed it
    }
  }
}

/** The validity file of the provider build `stamp` (the bundle's SHA-256), or undefined when it cannot be trusted. */
export function openRoleValidity(stamp: string, env: NodeJS.ProcessEnv = process.env): RoleValidity | undefined {
  if (!/^[0-9a-f]{32,}$/.test(stamp)) return undefined;
  let file: string;
  let known: Set<string>;
  try {
    const dir = cacheDir(env);
    if (!dir) return undefined;
    const name = `${PREFIX}${stamp.slice(0, 32)}`;
    file = join(dir, name);
    known = readDigests(file);
    removeStale(dir, name);
  } catch {
    return undefined;
  }
  let added: string[] = [];
  // add() follows a has() of the same role (validateRole): its digest is made once.
  let last = { json: '', digest: '' };
  const digestOf = (json: string) => (last.json === json ? last.digest : (last = { json, digest: digest(json) }).digest);
  return {
    has: (manifestJson) => known.has(digestOf(manifestJson)),
    add(manifestJson) {
      const d = digestOf(manifestJson);
      if (known.has(d)) return;
      known.add(d);
      added.push(d);
    },
    flush() {
      if (added.length === 0) return;
      const lines = `${added.join('\n')}\n`;
      added = [];
      try {
        const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o600);
        try {
          fs.writeSync(fd, lines);
        } finally {
          fs.closeSync(fd);
        }
      } catch {
        // a read-only home: the next process validates again
      }
    },
  };
}

let active: RoleValidity | undefined;
/** Opens the file on first use: the schema start and an apply with no role to check never read it. */
let opening: (() => RoleValidity | undefined) | undefined;

/** The provider process's validity file (main() names it when it runs as the built bundle). */
export function persistedRoleValidity(): RoleValidity | undefined {
  if (opening) {
    const open = opening;
    opening = undefined;
    active = open();
  }
  return active;
}

/** Names this process's file (opened when a role is first checked); what it learned is appended at exit. */
export function useRoleValidityFile(stamp: string, env: NodeJS.ProcessEnv = process.env): void {
  setRoleValidity(undefined);
  opening = () => openRoleValidity(stamp, env);
  process.once('exit', () => active?.flush());
}

/** The store validateRole consults (tests set one and clear it). */
export function setRoleValidity(v: RoleValidity | undefined): void {
  opening = undefined;
  active = v;
}
