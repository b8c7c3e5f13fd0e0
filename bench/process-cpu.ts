// CPU time of another process, read from /proc (Linux only; NaN elsewhere), for benches that
// report engine CPU per request beside their rates.

import { readFileSync } from 'node:fs';

/**
 * CPU seconds (user + system) used so far by the whole process, or with `mainThread` by its
 * event-loop thread alone (whose tid is the pid).
 */
export function cpuSeconds(pid: number, mainThread = false): number {
  try {
    const file = mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`;
    const fields = readFileSync(file, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}
