// For crash tests: pauses processes (SIGSTOP) the moment a temporary snapshot file (`.NAME.partial`)
// appears in a directory, so a kill that follows lands mid-write however fast the disk is. A write
// that finished before the pause took hold is let go (SIGCONT) and the next one is caught.

import type { ChildProcess } from 'node:child_process';
import { watch } from 'node:fs';
import { readdir } from 'node:fs/promises';

/** The final name a temporary `.NAME.partial` file becomes. */
export const finalOf = (partial: string): string => /^\.(.+)\.partial$/.exec(partial)![1]!;

/** Resolves with the temporary file's name once `procs` are paused while it is still being written. */
export function pauseMidWrite(dir: string, procs: ChildProcess[], timeoutMs: number): Promise<string> {
  return new Promise((ok, fail) => {
    const letGo = new Set<string>();
    // One check at a time: a stale one must not let go of a caught write.
    let checking = false;
    const done = (f: () => void) => {
      clearTimeout(timer);
      watcher.close();
      f();
    };
    const timer = setTimeout(() => done(() => fail(new Error(`no snapshot write caught in progress within ${timeoutMs} ms`))), timeoutMs);
    const watcher = watch(dir, (_event, file) => {
      const name = file === null ? '' : String(file);
      if (checking || !name.endsWith('.partial') || letGo.has(name)) return;
      checking = true;
      for (const p of procs) p.kill('SIGSTOP');
      void readdir(dir).then(
        (names) => {
          if (names.includes(name) && !names.includes(finalOf(name))) return done(() => ok(name));
          letGo.add(name);
          for (const p of procs) p.kill('SIGCONT');
          checking = false;
        },
        (e: Error) => done(() => fail(e)),
      );
    });
  });
}
