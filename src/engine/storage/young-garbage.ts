// A scavenge (V8's young-generation collection) every so many bytes of fresh chunk memory a
// snapshot reader hands out. Each chunk (1 MiB, moved in from the reader thread) is garbage once
// the archive has copied it, but its memory lies outside V8's heap and its JS object is tiny: the
// heap fills too slowly to start a collection, so V8 waits for 64 MiB of such memory before it
// collects (its external-memory limit), and a first snapshot grew the process by 70-86 MiB
// (bench/manual-snapshot.ts; reading the chunks alone, with no archive at all, showed the same).
// Only a collection frees that memory, and the only way to ask for one from JS is V8's gc function.
// A scavenge touches only the young generation, where these chunks still are: 0.2-5 ms each
// (--trace-gc, 2 CPUs at load average 5), 15 for a 133 MiB archive. It frees nothing that is
// still referenced, so it cannot change what the archive holds.
// The gc function comes from a fresh vm context made while --expose-gc is set for that moment
// (the flag is cleared again right after: it only decides whether new contexts get a `gc` global);
// a process started with --expose-gc has it already.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export type Gc = (options: { type: 'minor' | 'major' }) => void;

/** Fresh chunk bytes between two scavenges: the garbage they may leave stays about this size. */
export const SCAVENGE_EVERY_BYTES = 8 * 1024 * 1024;

let gc: Gc | undefined;

/** V8's gc function, without leaving a `gc` global behind (also what a test uses to measure held memory). */
export function obtainGc(): Gc {
  const own = (globalThis as { gc?: unknown }).gc;
  if (typeof own === 'function') return own as Gc;
  // Started with the flag (a test runner's context may still lack the global): left as it is.
  if (process.execArgv.some((a) => /^--expose[-_]gc$/.test(a))) return runInNewContext('gc') as Gc;
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as Gc;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

/** Counts the fresh bytes handed out; scavenges once SCAVENGE_EVERY_BYTES have gone by since the last. */
export class YoungGarbage {
  private bytes = 0;

  constructor(private readonly every = SCAVENGE_EVERY_BYTES) {}

  note(fresh: number): void {
    this.bytes += fresh;
    if (this.bytes < this.every) return;
    this.bytes = 0;
    (gc ??= obtainGc())({ type: 'minor' });
  }
}
