// The agent's scratch directory, where each attempt spools the managed server's archive before
// uploading it: one per process, named after its pid, so a start can remove what a killed agent
// (kill -9) left behind without touching the directory of an agent still running on this host.

import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'keyward-agent-';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but is another user's.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes scratch directories of agents that no longer run, then makes this process's own, under
 * `spoolDir` (--spool-dir: archives can be many GB, more than a tmpfs /tmp holds) or the OS temp dir.
 */
export async function agentScratchDir(spoolDir?: string): Promise<string> {
  const base = spoolDir ?? tmpdir();
  for (const name of await readdir(base).catch(() => [] as string[])) {
    const pid = Number(new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (pid && pid !== process.pid && !alive(pid)) await rm(join(base, name), { recursive: true, force: true }).catch(() => undefined);
  }
  return mkdtemp(join(base, `${PREFIX}${process.pid}-`));
}
